#include "sim/metrics/seed_statistics.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace slicelab {
namespace {

// Differences this close to 0 relative to the figures are rounding, not a difference.
bool negligible(double d, double scale) {
  return std::abs(d) <= 1e-9 * std::max(1.0, scale);
}

}  // namespace

double t_quantile(size_t df) {
  const boost::math::students_t dist(static_cast<double>(std::max<size_t>(df, 1)));
  return boost::math::quantile(dist, 1 - (1 - kConfidence) / 2);
}

Estimate estimate(std::span<const double> values) {
  Estimate e;
  e.n = values.size();
  if (values.empty()) return e;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  e.min = *lo;
  e.max = *hi;
  double sum = 0;
  for (const double v : values) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) return e;
  double squares = 0;
  for (const double v : values) squares += (v - e.mean) * (v - e.mean);
  e.stddev = std::sqrt(squares / static_cast<double>(e.n - 1));
  e.half_width = t_quantile(e.n - 1) * e.stddev / std::sqrt(static_cast<double>(e.n));
  return e;
}

PairedDifference paired_difference(std::span<const std::optional<double>> a,
                                   std::span<const std::optional<double>> b) {
  std::vector<double> d;
  double scale = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (!a[i] || !b[i]) continue;
    d.push_back(*a[i] - *b[i]);
    scale = std::max({scale, std::abs(*a[i]), std::abs(*b[i])});
  }
  PairedDifference p;
  p.difference = estimate(d);
  if (d.size() < 2) return p;
  if (negligible(p.difference.max - p.difference.min, scale)) {
    // The same difference in every seed: no noise at all.
    p.beyond_noise = !negligible(p.difference.mean, scale);
    return p;
  }
  p.beyond_noise = std::abs(p.difference.mean) > *p.difference.half_width;
  return p;
}

std::optional<size_t> seeds_to_separate(const Estimate& difference) {
  if (difference.mean == 0 || difference.n < 2) return std::nullopt;
  // n with t(n-1) s / sqrt(n) < |mean|; t shrinks as n grows, so step up from the bound t = z.
  const double ratio = difference.stddev / std::abs(difference.mean);
  size_t n = std::max<size_t>(2, static_cast<size_t>(std::ceil(1.96 * 1.96 * ratio * ratio)));
  constexpr size_t kLimit = 1'000'000;
  while (n < kLimit && t_quantile(n - 1) * ratio >= std::sqrt(static_cast<double>(n))) ++n;
  return n;
}

}  // namespace slicelab
