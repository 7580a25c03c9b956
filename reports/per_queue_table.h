// The terminal's per-queue table (`compare` of a scenario with queues): each policy's figures
// per queue, so that a policy that serves one team at another's expense shows it.
#pragma once

#include <span>
#include <string>

#include "sim/metrics/run_result.h"

namespace slicelab {

// One row per policy and queue (RunSummary::queues): jobs done, admission wait, queueing until
// the gang started (mean, p95), mean GPUs held, share of the cohort against the fair share,
// borrowed GPU-hours and jobs reclaimed; "" when no run has queues.
std::string per_queue_table(std::span<const RunResult> runs);

}  // namespace slicelab
