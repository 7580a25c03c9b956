// Reads Microsoft's Philly job log (msr-fiddle/philly-traces, cluster_job_log: a JSON list of
// jobs with their scheduling attempts and each attempt's machines and GPUs) into training jobs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/inputs/job_import.h"
#include "workloads/job_spec.h"

namespace slicelab {

// Which attempts make a job's run time. Philly records each scheduling attempt of a job (a
// retry after a failure or a preemption); the shape of the job is the used attempt's machines.
enum class PhillyRunTime : uint8_t {
  kLastAttempt,  // the last attempt with a start and an end time (default)
  kAllAttempts,  // the sum over attempts with both times; machines from the last such attempt
};

struct PhillyOptions : JobImportOptions {
  PhillyRunTime run_time = PhillyRunTime::kLastAttempt;
};

// The file is one JSON list of job objects (keys jobid, vc, submitted_time, attempts, each
// attempt with start_time, end_time and detail: [{ip, gpus: [...]}]; status and user are not
// read). Each job becomes one gang: workers = the used attempt's machines, each asking for the
// most GPUs any of those machines gave the job (machines that differ are counted under "machines
// with different gpu counts"); queue = vc; arrival = submitted_time, counted from the earliest.
// Times "YYYY-MM-DD HH:MM:SS", read as UTC. Skipped and counted: no submitted_time, no attempts,
// a last attempt without end_time ("running at snapshot"), no attempt with both times, no
// machines, a zero run time, no GPU (unless options.keep_cpu_only). The file is read whole (at
// most kMaxJobTraceBytes) and each job object parsed on its own, bounded (workloads/
// bounded_json.h). Throws InputError "file:line: job 'ID': key 'x': expected ..., found ..."
// (the line where the job's object starts), "file:line:col: ..." for JSON that does not parse.
std::vector<JobSpec> read_philly_jobs(const std::string& path, const PhillyOptions& options = {},
                                      JobImportCounts* counts = nullptr);

}  // namespace slicelab
