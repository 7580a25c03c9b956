#include "workloads/inputs/pod_yaml.h"

#include <fmt/format.h>

#include <unordered_map>

#include "workloads/hardware/mig_profiles.h"
#include "workloads/input_limits.h"
#include "workloads/kube/kube_resources.h"
#include "workloads/kube/kube_yaml_quantities.h"

namespace slicelab {

void read_pod_request(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      PodSpec& pod, const ModelCheck& check_model) {
  PodResourceRequest request;
  // Each key in turn; two keys for one request (cpu and cpu_milli) fail at the second.
  const auto read = [&](const char* key, RequestedAmount& slot, auto&& value) {
    if (const YAML::Node m = node[key]; m.IsDefined()) {
      std::string p = join_path(path, key);
      const int64_t v = value(m, p);
      request.set(yaml, slot, v, m, std::move(p), key);
    }
  };
  read("gpu_count", request.gpu_count,
       [&](const YAML::Node& m, const std::string& p) { return yaml.integer(m, p, 0, 64); });
  if (const YAML::Node m = node["mig_profile"]; m.IsDefined()) {
    std::string p = join_path(path, "mig_profile");
    request.mig_profile = yaml.string(m, p);
    if (!is_known_mig_profile(request.mig_profile))
      yaml.fail(m, p,
                fmt::format("unknown MIG profile '{}' (known: {})", request.mig_profile,
                            known_mig_profile_names()));
    request.set(yaml, request.mig, 0, m, std::move(p), "mig_profile");
  }
  read("gpu_milli", request.gpu_milli,
       [&](const YAML::Node& m, const std::string& p) { return yaml.integer(m, p, 1, 1000); });
  read("gpu_memory_mib", request.gpu_memory_mib,
       [&](const YAML::Node& m, const std::string& p) { return kube_mebibytes(yaml, m, p); });
  read("gpu_memory_percent", request.gpu_memory_percent,
       [&](const YAML::Node& m, const std::string& p) { return yaml.integer(m, p, 1, 100); });
  read("cpu_milli", request.cpu_milli, [&](const YAML::Node& m, const std::string& p) {
    return yaml.integer(m, p, 0, int64_t{1} << 40);
  });
  read("cpu", request.cpu_milli,
       [&](const YAML::Node& m, const std::string& p) { return kube_cpu_milli(yaml, m, p); });
  read("memory_mib", request.memory_mib,
       [&](const YAML::Node& m, const std::string& p) { return kube_mebibytes(yaml, m, p); });
  read("memory", request.memory_mib, [&](const YAML::Node& m, const std::string& p) {
    return kube_memory_bytes_as_mib(yaml, m, p);
  });
  if (const YAML::Node m = node["resources"]; m.IsDefined())
    read_kubernetes_resources(yaml, m, join_path(path, "resources"), request);
  apply_resource_request(yaml, request, pod);
  // HAMi (docs/hami.md): what the pod really uses of each GPU, beside what it asks for.
  if (const YAML::Node m = node["gpu_memory_used_mib"]; m.IsDefined()) {
    const std::string p = join_path(path, "gpu_memory_used_mib");
    const int64_t used = kube_mebibytes(yaml, m, p);
    if (pod.gpu_count == 0 && used > 0) yaml.fail(m, p, "GPU memory needs gpu_count of at least 1");
    if (used > INT32_MAX)
      yaml.fail(m, p, fmt::format("at most {} MiB (2 PiB) per GPU", int64_t{INT32_MAX}));
    pod.gpu_memory_used_mib = static_cast<int32_t>(used);
  }
  pod.priority =
      static_cast<int>(yaml.opt_integer(node, path, "priority", -1000000, 1000000).value_or(0));
  if (const YAML::Node m = node["allowed_models"]; m.IsDefined()) {
    const std::string p = join_path(path, "allowed_models");
    pod.allowed_models = yaml.string_list(m, p);
    if (pod.gpu_count == 0) yaml.fail(m, p, "allowed GPU models need gpu_count of at least 1");
    for (size_t i = 0; i < pod.allowed_models.size() && check_model; ++i) {
      if (auto err = check_model(pod.allowed_models[i]))
        yaml.fail(m.IsSequence() ? m[i] : m, m.IsSequence() ? index_path(p, i) : p, *err);
    }
  }
  // A trace's own spelling of the list ("V100M16|V100M32|V100M32"), which FGD's target workload
  // keys on (ModelList::written); `slicelab import` writes it where it differs from the list.
  if (const YAML::Node w = node["allowed_models_written"]; w.IsDefined()) {
    const std::string p = join_path(path, "allowed_models_written");
    if (pod.allowed_models.empty()) yaml.fail(w, p, "needs allowed_models");
    std::string written = yaml.string(w, p);
    if (written.empty()) yaml.fail(w, p, "a non-empty text");
    pod.allowed_models = ModelList(pod.allowed_models.to_vector(), std::move(written));
  }
  pod.workload_class = yaml.opt_string(node, path, "class").value_or("default");
  if (const YAML::Node slo = node["slo"]; slo.IsDefined()) {
    const std::string p = join_path(path, "slo");
    yaml.check_keys(slo, p, {"max_queue", "max_jct"});
    pod.set_slo(yaml.opt_duration(slo, p, "max_queue"), yaml.opt_duration(slo, p, "max_jct"));
  }
}

PodSpec read_pod(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                 size_t index, const ModelCheck& check_model) {
  yaml.check_keys(node, path,
                  {"name", "arrival", "duration", "gpu_count", "gpu_milli", "gpu_memory_mib",
                   "gpu_memory_used_mib", "gpu_memory_percent", "cpu_milli", "memory_mib", "cpu",
                   "memory", "resources", "priority", "allowed_models", "allowed_models_written",
                   "class", "slo", "mig_profile"});
  PodSpec pod;
  pod.name = yaml.opt_string(node, path, "name").value_or(fmt::format("pod-{}", index));
  pod.arrival_s = yaml.opt_duration(node, path, "arrival").value_or(0.0);
  pod.duration_s =
      yaml.duration(yaml.required(node, path, "duration"), join_path(path, "duration"), 0.001);
  read_pod_request(yaml, node, path, pod, check_model);
  return pod;
}

std::vector<PodSpec> read_pod_list(const YamlReader& yaml, const YAML::Node& list,
                                   std::string_view path, const ModelCheck& check_model) {
  yaml.require_seq(list, path);
  if (list.size() > static_cast<size_t>(kMaxPods))
    yaml.fail(list, path,
              fmt::format("has {} pods, more than the limit of {}", list.size(), kMaxPods));
  std::vector<PodSpec> pods;
  pods.reserve(list.size());
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = index_path(path, i);
    pods.push_back(read_pod(yaml, list[i], p, i, check_model));
    auto [it, inserted] = seen.emplace(pods.back().name, i);
    if (!inserted) {
      // An unnamed pod's default name can clash too: then point at the pod itself.
      const bool named = list[i]["name"].IsDefined();
      yaml.fail(named ? list[i]["name"] : list[i], named ? join_path(p, "name") : p,
                fmt::format("duplicate pod name '{}' (also {})", pods.back().name,
                            index_path(path, it->second)));
    }
  }
  return pods;
}

std::vector<PodSpec> read_trace_file(const std::string& path, const ModelCheck& check_model) try {
  const YAML::Node root = load_yaml_file(path, kMaxTraceYamlBytes);
  const YamlReader yaml(path);
  yaml.check_keys(root, "", {"pods", "description"});
  return read_pod_list(yaml, yaml.required(root, "", "pods"), "pods", check_model);
} catch (const YAML::Exception& e) {
  // A yaml-cpp exception that a check above missed still names the file.
  throw located_yaml_error(path, e);
}

}  // namespace slicelab
