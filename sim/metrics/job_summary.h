// The jobs' figures of one run (RunSummary::jobs) from their outcomes: counts by status, the
// gang's queueing and the JCT of completed jobs, the GPU-hours pods held waiting for their gang.
#pragma once

#include <span>

#include "sim/metrics/run_result.h"
#include "workloads/job_table.h"

namespace slicelab {

// `outcomes` holds one entry per job of `jobs`, in order.
JobSummary summarize_jobs(const JobTable& jobs, std::span<const JobOutcome> outcomes);

}  // namespace slicelab
