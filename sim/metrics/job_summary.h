// The jobs' figures of one run (RunSummary::jobs) from their outcomes: counts by status, the
// gang's queueing and the JCT of completed jobs, the GPU-hours pods held waiting for their gang.
#pragma once

#include <span>

#include "sim/metrics/run_result.h"
#include "workloads/job_table.h"

namespace slicelab {

// `outcomes` holds one entry per job of `jobs`, in order.
JobSummary summarize_jobs(const JobTable& jobs, std::span<const JobOutcome> outcomes);

// The job figures of queue `queue` (the jobs j with queue_of[j] == queue): counts, admission
// wait, queueing until the gang started, JCT and the work lost to evictions. The quota figures
// are the engine's to fill.
QueueSummary summarize_queue_jobs(const JobTable& jobs, std::span<const JobOutcome> outcomes,
                                  std::span<const uint32_t> queue_of, uint32_t queue);

}  // namespace slicelab
