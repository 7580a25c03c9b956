// Reads Alibaba's spot-GPU job trace of 2026 (alibaba/clusterdata cluster-trace-v2026-spot-gpu,
// job_info_df.csv; the GFS paper, ASPLOS'26) into training jobs (docs/job-traces.md#spot).
#pragma once

#include <string>
#include <vector>

#include "workloads/inputs/job_import.h"
#include "workloads/job_spec.h"

namespace slicelab {

// Columns organization, cpu_request, gpu_request, worker_num, submit_time, duration and
// job_type required; job_name (the job's name; else "spot-LINE") and gpu_model optional. Each
// of worker_num workers asks for cpu_request cores and gpu_request GPUs (a request below 1 is a
// share of one GPU, gpu_milli; one above 1 with a fraction is rounded up, counted); the workers
// are one gang. organization is the queue; job_type HP is a regular job, Spot a spot job
// (JobTier::kSpot), and the text is the workload class. submit_time and duration are seconds;
// arrivals count from the earliest submission. gpu_model becomes the allowed model when
// options.check_model accepts it. Skips (counted) rows with an empty or zero duration,
// worker_num 0, or no GPU (unless options.keep_cpu_only). Throws InputError
// "file:line: column 'x': expected ..., found '...'".
std::vector<JobSpec> read_alibaba_spot_jobs(const std::string& path,
                                            const JobImportOptions& options = {},
                                            JobImportCounts* counts = nullptr);

}  // namespace slicelab
