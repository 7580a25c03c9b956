// Reads Shanghai AI Lab Acme job traces (InternLM/AcmeTrace, data/job_trace/trace_seren.csv and
// trace_kalos.csv) into training jobs, one per row (docs/job-traces.md#acme).
#pragma once

#include <string>
#include <vector>

#include "workloads/inputs/job_import.h"
#include "workloads/job_spec.h"

namespace slicelab {

// Columns job_id, node_num, gpu_num, cpu_num, submit_time and duration (or start_time and
// end_time) required; user names the queue (the traces have no virtual clusters), type the
// workload class ("Pretrain", "SFT", "Evaluation", ...), mem_per_pod_GB (Kalos only) each
// worker's memory in GiB; state, queue (a queueing delay), gpu_time, shared_mem_per_pod,
// fail_time and stop_time are not read. Times "YYYY-MM-DD HH:MM:SS+08:00"; arrivals count from
// the earliest submit_time. Workers = node_num, each with ceil(gpu_num / node_num) GPUs and
// ceil(cpu_num / node_num) cores, one gang. Skips (counted) rows without a submit time or run
// time, with node_num 0, a zero duration, or no GPU (unless options.keep_cpu_only). Throws
// InputError "file:line: column 'x': expected ..., found '...'".
std::vector<JobSpec> read_acme_jobs(const std::string& path, const JobImportOptions& options = {},
                                    JobImportCounts* counts = nullptr);

}  // namespace slicelab
