// Whether two independent samples of a figure (seeds that do not pair up) differ beyond noise:
// Welch's unequal-variance t interval of the difference of their means, at kConfidence.
#pragma once

#include <optional>
#include <span>

namespace slicelab {

// b's mean - a's mean with its 95% interval. A side with one value borrows the other side's
// variance (the spread a seed shows is taken to be the same on both sides), which makes the
// interval the t prediction interval of that one value; `half_width` and `beyond_noise` are none
// when neither side holds two values or a side holds none. With no spread on either side any
// non-negligible difference is beyond noise.
struct UnpairedDifference {
  double difference = 0;
  std::optional<double> half_width;
  std::optional<double> degrees_of_freedom;  // Welch-Satterthwaite's (fractional)
  std::optional<bool> beyond_noise;
};

UnpairedDifference welch_difference(std::span<const double> a, std::span<const double> b);

}  // namespace slicelab
