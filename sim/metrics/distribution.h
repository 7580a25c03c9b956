// Order statistics for the summary: nearest-rank percentiles (the p-th percentile is the
// smallest value with at least p% of values at or below it), chosen because they hand-compute.
#pragma once

#include <vector>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Sorts `values` in place.
Distribution distribution_of(std::vector<double>& values);
double nearest_rank(const std::vector<double>& sorted, double percent);

}  // namespace slicelab
