// The job logs of Slurm-like schedulers (SenseTime Helios, Shanghai AI Lab Acme): one CSV row per
// job with its GPU and CPU totals over node_num nodes and its submit, start and end dates.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/inputs/job_import.h"
#include "workloads/job_spec.h"

namespace slicelab {

// The columns that differ between the logs; the rest are common: job_id, node_num, gpu_num,
// cpu_num, submit_time (required), start_time, end_time, duration (a run time in seconds, or
// start_time and end_time). A log's `queue` column is its queueing delay, never a queue name.
struct SlurmLogFormat {
  // The first of these columns the header has names each job's queue (none: the default queue).
  std::span<const std::string_view> queue_columns;
  // The column naming each job's workload class (Acme's "type"); empty: no class.
  std::string_view class_column;
  // Memory of each pod in GiB (Acme Kalos's "mem_per_pod_GB"); empty, or absent: no memory.
  std::string_view memory_gib_column;
};

// One job per row, its workers the nodes: workers = node_num, each asking for
// ceil(gpu_num / node_num) GPUs and ceil(cpu_num / node_num) cores, all of them one gang.
// Rows with an empty submit time or run time, node_num 0, no run time, or (unless kept) no GPU
// are skipped and counted; a malformed value is an InputError "file:line: column 'x': ...".
std::vector<JobSpec> read_slurm_job_log(const std::string& path, const SlurmLogFormat& format,
                                        const JobImportOptions& options = {},
                                        JobImportCounts* counts = nullptr);

}  // namespace slicelab
