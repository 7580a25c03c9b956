// Reads Alibaba PAI's GPU trace of 2020 (alibaba/clusterdata cluster-trace-gpu-v2020: the job
// and task tables) into training jobs, one per task, its instances the gang's workers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "workloads/inputs/job_import.h"
#include "workloads/job_spec.h"

namespace slicelab {

// The tables' columns in the README's order: the published CSV files have no header row (the
// columns come in separate .header files), so a file whose first row does not name the column
// job_name is read in this order; a file with a header row is read by name, in any order.
inline constexpr std::string_view kPaiJobColumns[] = {"job_name", "inst_id",    "user",
                                                      "status",   "start_time", "end_time"};
inline constexpr std::string_view kPaiTaskColumns[] = {
    "job_name", "task_name", "inst_num", "status",   "start_time",
    "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};

// One job per row of the task table, named "job_name/task_name": workers = inst_num, each asking
// for plan_gpu percent of a GPU (50 = half of one, 100 = one, 800 = eight; a share above one
// GPU that is not whole is rounded up, counted), plan_cpu percent of a core and plan_mem GB
// (GiB) of memory, all of them one gang; run time = end_time - start_time; class = task_name;
// gpu_type the allowed model when options.check_model accepts it (V100M32 read as V100-32GB,
// V100 as V100-16GB; MISC and the rest any model). From the job table (`job_table` empty: not
// read): arrival = the job's start_time (its submission), queue = its user; a task whose job is
// not there arrives at its own start_time (counted). Arrivals count from the earliest. Status
// columns are not read. Skipped and counted: no run time (an empty start or end: waiting or
// running tasks), a zero run time, inst_num 0, no GPU (unless options.keep_cpu_only). Empty
// cells and "nan" are missing values; fields hold no commas or quotes (the trace's hashed names
// and numbers). Throws InputError "file:line: column 'x': expected ..., found '...'".
std::vector<JobSpec> read_pai2020_jobs(const std::string& task_table, const std::string& job_table,
                                       const JobImportOptions& options = {},
                                       JobImportCounts* counts = nullptr);

// The slicelab catalog name of a PAI gpu_type: V100M32 -> V100-32GB, V100 -> V100-16GB; the
// others keep their names (T4, P100, MISC).
std::string pai2020_model_name(std::string_view gpu_type);

}  // namespace slicelab
