// How long one request of an inference service takes on a whole GPU of the reference model when
// it is served alone: a distribution given by its mean and coefficient of variation (cv).
#pragma once

#include <cstdint>

#include "workloads/rng.h"

namespace slicelab {

// Contract: mean_s > 0; cv >= 0; kConstant has cv 0, kExponential cv 1, kLognormal cv > 0
// (make() picks the shape from the cv unless exponential is asked for). Readers check these.
struct ServiceTime {
  enum class Shape : uint8_t { kConstant, kExponential, kLognormal };
  Shape shape = Shape::kExponential;
  double mean_s = 0.1;
  double cv = 1.0;

  // cv 0: constant; else lognormal with that cv (a cv of 1 is lognormal too unless
  // `exponential` is set: the two share their first two moments, not their tails).
  static ServiceTime make(double mean_s, double cv, bool exponential = false);

  double sample(Rng& rng) const;
  // P(S > t).
  double survival(double t) const;
  // The p-quantile, 0 < p < 1.
  double quantile(double p) const;
  // E[S^2] = mean^2 (1 + cv^2).
  double second_moment() const { return mean_s * mean_s * (1.0 + cv * cv); }

 private:
  // Lognormal parameters of log S: sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2.
  double mu() const;
  double sigma() const;
};

// The standard normal's quantile (Acklam's rational approximation with one Halley step: relative
// error below 1e-12 over (0, 1)).
double normal_quantile(double p);

}  // namespace slicelab
