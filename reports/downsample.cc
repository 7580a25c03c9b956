#include "reports/downsample.h"

#include <algorithm>
#include <cmath>

namespace slicelab {

std::vector<size_t> downsample_indices(size_t n, size_t max_points) {
  max_points = std::max<size_t>(max_points, 2);
  std::vector<size_t> out;
  if (n <= max_points) {
    out.resize(n);
    for (size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  out.reserve(max_points);
  const double step = static_cast<double>(n - 1) / static_cast<double>(max_points - 1);
  for (size_t k = 0; k < max_points; ++k) {
    const auto i = static_cast<size_t>(std::llround(step * static_cast<double>(k)));
    if (out.empty() || i != out.back()) out.push_back(std::min(i, n - 1));
  }
  return out;
}

std::vector<CdfPoint> cdf_points(std::vector<double> values, size_t max_points) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  std::vector<CdfPoint> out;
  const auto fraction = [n](size_t rank) {
    return static_cast<double>(rank + 1) / static_cast<double>(n);
  };
  if (n <= std::max<size_t>(max_points, 2)) {
    // One point per distinct value, at the last of its ties: the share of values <= it.
    for (size_t i = 0; i < n; ++i)
      if (i + 1 == n || values[i + 1] != values[i]) out.push_back({values[i], fraction(i)});
    return out;
  }
  for (const size_t i : downsample_indices(n, max_points)) {
    // Move to the last tie so that the fraction stays the true share <= value.
    const size_t j = static_cast<size_t>(std::upper_bound(values.begin(), values.end(), values[i]) -
                                         values.begin() - 1);
    if (!out.empty() && out.back().value == values[j]) continue;
    out.push_back({values[j], fraction(j)});
  }
  return out;
}

}  // namespace slicelab
