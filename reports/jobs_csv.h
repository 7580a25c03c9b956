// results/<scenario>/jobs.csv: one row per policy and job of a workload with jobs (its queue,
// admission, gang start, end, status, queueing, JCT, GPU time held waiting, evictions, lost
// work); docs/results-format.md#jobscsv. Written a few rows at a time.
#pragma once

#include <ostream>
#include <span>

#include "sim/metrics/run_result.h"
#include "workloads/job_table.h"

namespace slicelab {

// Whether `runs` have jobs to write (the workload has jobs and the runs their outcomes).
bool has_job_rows(std::span<const RunResult> runs);
// The header and one row per run and job, in job order; `default_queue` names the queue of jobs
// that name none (empty: none). Times in seconds; -1 never happens in the file: an event that did
// not happen is an empty cell.
void write_jobs_csv(std::ostream& out, const JobTable& jobs, std::string_view default_queue,
                    std::span<const RunResult> runs);

}  // namespace slicelab
