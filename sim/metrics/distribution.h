// Order statistics for the summary: nearest-rank percentiles (the p-th percentile is the
// smallest value with at least p% of values at or below it), chosen because they hand-compute.
#pragma once

#include <vector>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Reorders `values` (partial selection: linear time, not a sort). The mean is summed in
// extended precision, so that the order the values come in hardly matters to it.
Distribution distribution_of(std::vector<double>& values);
double nearest_rank(const std::vector<double>& sorted, double percent);

}  // namespace slicelab
