// Scenario -> v1.Node / v1.Pod objects (scenario_kube_objects.h).
#include "tests/support/scenario_kube_objects.h"

#include <fmt/format.h>

namespace slicelab::testing {

using nlohmann::json;

std::string gfd_product_of(const std::string& model) {
  if (model == "A100-80GB") return "NVIDIA-A100-SXM4-80GB";
  if (model == "A100-40GB") return "NVIDIA-A100-SXM4-40GB";
  if (model == "H100-80GB") return "NVIDIA-H100-80GB-HBM3";
  if (model == "T4") return "Tesla-T4";
  return "NVIDIA-" + model;
}

std::vector<json> scenario_nodes(const Scenario& scenario) {
  std::vector<json> nodes;
  for (const NodeGroup& g : scenario.cluster.groups) {
    for (int i = 0; i < g.count; ++i) {
      const std::string name = g.node_names.empty() ? fmt::format("{}-{}", g.name, i)
                                                    : g.node_names[static_cast<size_t>(i)];
      json node = {{"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
                   {"spec", json::object()},
                   {"status",
                    {{"allocatable",
                      {{"cpu", fmt::format("{}m", g.cpu_milli)},
                       {"memory", fmt::format("{}Mi", g.memory_mib)},
                       {"pods", "110"}}},
                     {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
      node["status"]["capacity"] = node["status"]["allocatable"];
      if (g.gpus_per_node > 0) {
        const GpuModel& m = scenario.catalog.models()[g.gpu_model];
        json& labels = node["metadata"]["labels"];
        labels["nvidia.com/gpu.product"] = gfd_product_of(m.name);
        labels["nvidia.com/gpu.count"] = std::to_string(g.gpus_per_node);
        labels["nvidia.com/gpu.memory"] = std::to_string(m.memory_mib);
        node["status"]["allocatable"]["nvidia.com/gpu"] = std::to_string(g.gpus_per_node);
        node["status"]["capacity"]["nvidia.com/gpu"] = std::to_string(g.gpus_per_node);
      }
      nodes.push_back(std::move(node));
    }
  }
  return nodes;
}

json scenario_pod(const PodSpec& spec, const std::string& ns) {
  json requests = {{"cpu", fmt::format("{}m", spec.cpu_milli)},
                   {"memory", fmt::format("{}Mi", spec.memory_mib)}};
  json limits = requests;
  if (spec.gpu_count > 0) {
    limits["nvidia.com/gpu"] = std::to_string(spec.gpu_count);
    if (spec.gpu_memory_mib > 0) limits["nvidia.com/gpumem"] = std::to_string(spec.gpu_memory_mib);
    if (spec.gpu_milli < 1000) limits["nvidia.com/gpucores"] = std::to_string(spec.gpu_milli / 10);
  }
  json pod = {{"metadata", {{"name", std::string(spec.name.view())}, {"namespace", ns}}},
              {"spec",
               {{"schedulerName", "default-scheduler"},
                {"restartPolicy", "Never"},
                {"containers",
                 json::array({{{"name", "main"},
                               {"image", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"},
                               {"resources", {{"requests", requests}, {"limits", limits}}}}})}}}};
  if (spec.priority != 0) pod["spec"]["priority"] = spec.priority;
  return pod;
}

}  // namespace slicelab::testing
