// Reads a list of training jobs from YAML (workload.jobs and a trace file's `jobs:`;
// docs/training-jobs.md#jobs): a worker's request, a worker count and the gang's minimum.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

#include "workloads/inputs/pod_yaml.h"
#include "workloads/job_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// Every rule violation is a located InputError: names unique, workers 1..kMaxJobWorkers,
// min_member 1..workers (or `all`), at most kMaxJobs jobs.
std::vector<JobSpec> read_job_list(const YamlReader& yaml, const YAML::Node& list,
                                   std::string_view path, const ModelCheck& check_model = {});

}  // namespace slicelab
