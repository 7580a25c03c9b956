// The capacity curve's fitted model: a target metric against GPU count, value = a + b / gpus,
// by linear least squares (Eigen), kept non-negative over the data's range for non-negative
// data. The 1/gpus term is the queueing intuition: the waiting caused by a fixed amount of work
// shrinks with the capacity that serves it.
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace slicelab {

struct CurvePoint {
  double gpus = 0;
  double value = 0;
};

struct CapacityFit {
  double a = 0, b = 0;  // value = a + b / gpus
  double r2 = 0;        // 1 - SS_res / SS_tot; 1 when every value is equal and fitted exactly
  // The fitted curve sampled for drawing over the data's GPU range, clamped to the observed
  // values' range: monotone, and non-negative when every observed value is.
  std::vector<CurvePoint> samples;
};

// Least squares over the points (for values all >= 0, constrained to a curve that is >= 0
// at both ends of the GPU range); nullopt with fewer than two distinct GPU counts (the model
// has two coefficients). `samples` points are spread evenly over the points' GPU range.
std::optional<CapacityFit> fit_capacity_curve(std::span<const CurvePoint> points, int samples = 32);

inline const char* capacity_model_text() {
  return "value = a + b / gpus";
}

}  // namespace slicelab
