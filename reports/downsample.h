// Thinning long series for charts: an empirical CDF as at most N quantile points, and a time
// series as at most N evenly spaced samples. Keeps report.html small for large runs.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace slicelab {

struct CdfPoint {
  double value = 0;     // x: the metric
  double fraction = 0;  // y: share of values <= value, in (0, 1]
};

// The empirical CDF of `values` (any order). With n <= max_points values every value appears
// once per distinct value (its fraction the share <= it); otherwise max_points points at evenly
// spaced ranks, always including the smallest and the largest value.
std::vector<CdfPoint> cdf_points(std::vector<double> values, size_t max_points);

// Indices 0..n-1 to keep: all of them when n <= max_points, else max_points indices evenly
// spaced by rank, always including the first and the last. max_points < 2 is treated as 2.
std::vector<size_t> downsample_indices(size_t n, size_t max_points);

}  // namespace slicelab
