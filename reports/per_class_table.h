// The terminal's per-class table (`compare --wide`): each policy's figures per workload class,
// so that a policy that serves one class at another's expense shows it.
#pragma once

#include <span>
#include <string>

#include "sim/metrics/run_result.h"

namespace slicelab {

// One row per policy and class (RunSummary::per_class), cells as the comparison table writes
// them; "" when no run has classes (a workload without `class:`).
std::string per_class_table(std::span<const RunResult> runs);

}  // namespace slicelab
