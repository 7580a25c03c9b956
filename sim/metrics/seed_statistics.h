// What a figure measured over several seeds says with its noise: the mean and its 95% confidence
// interval, the seed range, and whether two policies' per-seed figures differ beyond noise.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace slicelab {

// The confidence level of every interval slicelab reports (two-sided).
constexpr double kConfidence = 0.95;

// A figure over n seeds. half_width is the 95% confidence interval's half width of the mean
// (Student's t with n - 1 degrees of freedom over the sample standard deviation); none for one
// seed, where the noise is unknown.
struct Estimate {
  size_t n = 0;
  double mean = 0, stddev = 0, min = 0, max = 0;
  std::optional<double> half_width;

  double low() const { return mean - half_width.value_or(0); }
  double high() const { return mean + half_width.value_or(0); }
};

// Over the given values (one per seed); n = 0 for none.
Estimate estimate(std::span<const double> values);

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (df >= 1).
double t_quantile(size_t df);

// a - b seed by seed (common random numbers: every policy saw the same workload per seed), so the
// workload's own variation cancels. `beyond_noise`: the 95% interval of the mean difference
// excludes 0 (with every difference equal, any non-zero difference is beyond noise); none when
// only one seed pairs up, where noise is unknown.
struct PairedDifference {
  Estimate difference;
  std::optional<bool> beyond_noise;
};

// `a` and `b` are in the same seed order; seeds where either is missing are left out.
PairedDifference paired_difference(std::span<const std::optional<double>> a,
                                   std::span<const std::optional<double>> b);

// About how many seeds a paired difference with this mean and standard deviation needs before
// its 95% interval excludes 0; none when the mean difference is 0 (no number of seeds will do).
std::optional<size_t> seeds_to_separate(const Estimate& difference);

}  // namespace slicelab
