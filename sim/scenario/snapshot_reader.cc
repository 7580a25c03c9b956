#include "sim/scenario/snapshot_reader.h"

#include <fmt/format.h>

#include <filesystem>
#include <unordered_map>

#include "workloads/input_limits.h"

namespace slicelab {

std::vector<std::string> cluster_node_names(const ClusterSpec& cluster) {
  std::vector<std::string> names;
  for (const NodeGroup& g : cluster.groups)
    for (int i = 0; i < g.count; ++i)
      names.push_back(g.node_names.empty() ? fmt::format("{}-{}", g.name, i)
                                           : g.node_names[static_cast<size_t>(i)]);
  return names;
}

std::optional<SnapshotOvercommit> find_snapshot_overcommit(const ClusterSpec& cluster,
                                                           const GpuCatalog& catalog,
                                                           std::span<const PodSpec> pods,
                                                           std::span<const PinnedPod> pinned) {
  struct Room {
    int64_t cpu_milli, memory_mib, gpu_milli, gpu_memory_mib;
  };
  std::vector<Room> room;
  for (const NodeGroup& g : cluster.groups)
    for (int i = 0; i < g.count; ++i)
      room.push_back({g.cpu_milli, g.memory_mib, int64_t{1000} * g.gpus_per_node,
                      g.gpus_per_node > 0 ? catalog.models()[g.gpu_model].memory_mib : 0});
  const std::vector<std::string> names = cluster_node_names(cluster);
  for (size_t k = 0; k < pinned.size(); ++k) {
    const PodSpec& pod = pods[pinned[k].pod];
    Room& r = room[pinned[k].node];
    const auto over = [&](const char* what, int64_t asks, int64_t left) {
      return SnapshotOvercommit{
          k, fmt::format("pod '{}' does not fit node '{}': it asks for {} {} and the pods before "
                         "it on that node leave {}; a snapshot must not over-commit a node",
                         pod.name, names[pinned[k].node], asks, what, left)};
    };
    const int64_t gpu_milli = int64_t{pod.gpu_count} * (pod.gpu_count == 1 ? pod.gpu_milli : 1000);
    if (pod.cpu_milli > r.cpu_milli) return over("CPU millicores", pod.cpu_milli, r.cpu_milli);
    if (pod.memory_mib > r.memory_mib) return over("MiB of memory", pod.memory_mib, r.memory_mib);
    if (gpu_milli > r.gpu_milli) return over("thousandths of GPUs", gpu_milli, r.gpu_milli);
    if (pod.gpu_count > 0 && pod.gpu_memory_mib > r.gpu_memory_mib)
      return over("MiB of memory on each GPU", pod.gpu_memory_mib, r.gpu_memory_mib);
    r.cpu_milli -= pod.cpu_milli;
    r.memory_mib -= pod.memory_mib;
    r.gpu_milli -= gpu_milli;
  }
  return std::nullopt;
}

std::vector<PinnedPod> read_snapshot_file(const std::string& path, const ClusterSpec& cluster,
                                          const GpuCatalog& catalog,
                                          std::span<const PodSpec> pods) try {
  const YAML::Node root = load_yaml_file(path, kMaxTraceYamlBytes);
  const YamlReader yaml(path);
  yaml.check_keys(root, "", {"snapshot", "description"});
  const YAML::Node list = yaml.required(root, "", "snapshot");
  yaml.require_seq(list, "snapshot");

  std::unordered_map<std::string, NodeId> node_index;
  const std::vector<std::string> names = cluster_node_names(cluster);
  for (size_t i = 0; i < names.size(); ++i) node_index.emplace(names[i], static_cast<NodeId>(i));
  std::unordered_map<std::string_view, uint32_t> pod_index;
  for (size_t i = 0; i < pods.size(); ++i)
    pod_index.emplace(pods[i].name.view(), static_cast<uint32_t>(i));

  std::vector<PinnedPod> out;
  std::unordered_map<uint32_t, size_t> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = index_path("snapshot", i);
    const YAML::Node e = list[i];
    yaml.check_keys(e, p, {"pod", "node"});
    const YAML::Node pn = yaml.required(e, p, "pod");
    const std::string pod = yaml.string(pn, join_path(p, "pod"));
    const YAML::Node nn = yaml.required(e, p, "node");
    const std::string node = yaml.string(nn, join_path(p, "node"));
    const auto pi = pod_index.find(pod);
    if (pi == pod_index.end())
      yaml.fail(pn, join_path(p, "pod"), fmt::format("no pod '{}' in the workload", pod));
    const auto ni = node_index.find(node);
    if (ni == node_index.end())
      yaml.fail(nn, join_path(p, "node"),
                fmt::format("no node '{}' in the cluster (pod '{}' runs there)", node, pod));
    if (auto [it, fresh] = seen.emplace(pi->second, i); !fresh)
      yaml.fail(pn, join_path(p, "pod"),
                fmt::format("pod '{}' is pinned twice (also {})", pod,
                            index_path("snapshot", it->second)));
    if (const double at = pods[pi->second].arrival_s; at != 0)
      yaml.fail(
          pn, join_path(p, "pod"),
          fmt::format("pod '{}' arrives at {:g}s; a snapshot's running pods arrive at 0", pod, at));
    out.push_back({pi->second, ni->second});
  }
  if (const auto over = find_snapshot_overcommit(cluster, catalog, pods, out))
    yaml.fail(list[over->entry], index_path("snapshot", over->entry), over->message);
  return out;
} catch (const YAML::Exception& e) {
  throw located_yaml_error(path, e);
}

std::vector<PinnedPod> read_snapshot_key(const YamlReader& yaml, const YAML::Node& node,
                                         const std::string& scenario_path,
                                         const ClusterSpec& cluster, const GpuCatalog& catalog,
                                         std::span<const PodSpec> pods) {
  const std::string rel = yaml.string(node, "workload.snapshot");
  const auto file = std::filesystem::path(scenario_path).parent_path() / rel;
  yaml.require_file(node, "workload.snapshot", file, "snapshot file");
  return read_snapshot_file(file.string(), cluster, catalog, pods);
}

}  // namespace slicelab
