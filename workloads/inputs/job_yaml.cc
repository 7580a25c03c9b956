#include "workloads/inputs/job_yaml.h"

#include <fmt/format.h>

#include <string>

#include "workloads/input_limits.h"
#include "workloads/inputs/named_list.h"

namespace slicelab {
namespace {

JobSpec read_job(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                 size_t index, const ModelCheck& check_model) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"name",
                   "arrival",
                   "duration",
                   "workers",
                   "min_member",
                   "queue",
                   "tier",
                   "checkpoint",
                   "gpu_count",
                   "gpu_milli",
                   "gpu_memory_mib",
                   "gpu_memory_used_mib",
                   "gpu_memory_percent",
                   "cpu_milli",
                   "memory_mib",
                   "cpu",
                   "memory",
                   "resources",
                   "priority",
                   "allowed_models",
                   "class",
                   "mig_profile"});
  JobSpec job;
  job.name = yaml.opt_string(node, path, "name").value_or(fmt::format("job-{}", index));
  job.arrival_s = yaml.opt_duration(node, path, "arrival").value_or(0.0);
  job.duration_s =
      yaml.duration(yaml.required(node, path, "duration"), join_path(path, "duration"), 0.001);
  job.workers =
      static_cast<int>(yaml.opt_integer(node, path, "workers", 1, kMaxJobWorkers).value_or(1));
  if (const YAML::Node m = node["min_member"]; m.IsDefined()) {
    if (m.IsScalar() && m.Scalar() == "all") {
      job.min_member = 0;
    } else {
      job.min_member =
          static_cast<int>(yaml.integer(m, join_path(path, "min_member"), 1, job.workers));
    }
  }
  job.queue = yaml.opt_string(node, path, "queue").value_or("");
  if (auto tier = yaml.opt_string(node, path, "tier")) {
    if (*tier == "spot")
      job.tier = JobTier::kSpot;
    else if (*tier != "regular")
      yaml.fail_expected(node["tier"], join_path(path, "tier"), "regular or spot");
  }
  job.checkpoint_s = yaml.opt_duration(node, path, "checkpoint", 1.0).value_or(0.0);
  read_pod_request(yaml, node, path, job.worker, check_model);
  return job;
}

}  // namespace

std::vector<JobSpec> read_job_list(const YamlReader& yaml, const YAML::Node& list,
                                   std::string_view path, const ModelCheck& check_model) {
  return read_named_list<JobSpec>(yaml, list, path, "job", kMaxJobs,
                                  [&](const YAML::Node& node, const std::string& p, size_t i) {
                                    return read_job(yaml, node, p, i, check_model);
                                  });
}

}  // namespace slicelab
