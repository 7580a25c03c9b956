// Puts the provisioned GPU-hours and cost of the runs of one compare on one horizon, so that the
// same cluster costs the same for every policy (docs/results-format.md, "Cost horizon").
#pragma once

#include <span>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Contract: `runs` replayed the same workload on the same (static) cluster, one seed. Their
// common horizon is [earliest window start, latest window end] over all of them; each run's
// gpu_hours_provisioned and cost_usd (per model and in total) become the cluster's capacity x
// that horizon (x the model's price), and cost_window_start_s/_end_s name it. The runs' own
// windows (window_start_s/_end_s) and every other figure (allocation ratio, utilization,
// GPU-hours allocated) stay as they were. With one run nothing changes.
void put_on_common_horizon(std::span<RunResult> runs);
// The same over summaries (a sweep's rows hold only summaries).
void put_on_common_horizon(std::span<RunSummary* const> summaries);

}  // namespace slicelab
