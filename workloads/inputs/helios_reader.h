// Reads SenseTime Helios job logs (S-Lab-System-Group/HeliosData, data/<cluster>/cluster_log.csv)
// into training jobs, one per row, its workers the job's nodes (docs/job-traces.md#helios).
#pragma once

#include <string>
#include <vector>

#include "workloads/inputs/job_import.h"
#include "workloads/job_spec.h"

namespace slicelab {

// Columns job_id, node_num, gpu_num, cpu_num, submit_time and duration (or start_time and
// end_time) required; vc names the queue (user when there is no vc column); state is not read
// (every finished job ran for its duration, whatever its outcome). Times "YYYY-MM-DD HH:MM:SS";
// arrivals count from the earliest submit_time. Workers = node_num, each with
// ceil(gpu_num / node_num) GPUs and ceil(cpu_num / node_num) cores, one gang. Skips (counted)
// rows without a submit time or run time, with node_num 0, a zero duration, or no GPU (unless
// options.keep_cpu_only). Throws InputError "file:line: column 'x': expected ..., found '...'".
std::vector<JobSpec> read_helios_jobs(const std::string& path, const JobImportOptions& options = {},
                                      JobImportCounts* counts = nullptr);

}  // namespace slicelab
