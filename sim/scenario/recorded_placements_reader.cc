#include "sim/scenario/recorded_placements_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "sim/scenario/snapshot_reader.h"
#include "workloads/input_limits.h"

namespace slicelab {

std::vector<PinnedPod> read_placements_key(const YamlReader& scenario_yaml, const YAML::Node& key,
                                           const std::string& scenario_path,
                                           const ClusterSpec& cluster,
                                           std::span<const PodSpec> pods,
                                           std::vector<RecordedGpus>& gpus) {
  const std::string rel = scenario_yaml.string(key, "workload.placements");
  const auto file = std::filesystem::path(scenario_path).parent_path() / rel;
  scenario_yaml.require_file(key, "workload.placements", file, "placements file");
  const std::string path = file.string();
  try {
    const YAML::Node root = load_yaml_file(path, kMaxTraceYamlBytes);
    const YamlReader yaml(path);
    yaml.check_keys(root, "", {"placements", "description"});
    const YAML::Node list = yaml.required(root, "", "placements");
    yaml.require_seq(list, "placements");
    std::unordered_map<std::string, NodeId> node_index;
    const std::vector<std::string> names = cluster_node_names(cluster);
    std::vector<int> gpus_on;  // per node of the cluster
    for (const NodeGroup& g : cluster.groups)
      gpus_on.insert(gpus_on.end(), g.count, g.gpus_per_node);
    for (size_t i = 0; i < names.size(); ++i) node_index.emplace(names[i], static_cast<NodeId>(i));
    std::unordered_map<std::string_view, uint32_t> pod_index;
    for (size_t i = 0; i < pods.size(); ++i)
      pod_index.emplace(pods[i].name.view(), static_cast<uint32_t>(i));
    std::vector<PinnedPod> out;
    std::unordered_map<uint32_t, size_t> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = index_path("placements", i);
      const YAML::Node e = list[i];
      yaml.check_keys(e, p, {"pod", "node", "gpus"});
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
                  fmt::format("no node '{}' in the cluster (pod '{}' ran there)", node, pod));
      if (auto [it, fresh] = seen.emplace(pi->second, i); !fresh)
        yaml.fail(pn, join_path(p, "pod"),
                  fmt::format("pod '{}' is placed twice (also {})", pod,
                              index_path("placements", it->second)));
      out.push_back({pi->second, ni->second});
      if (const YAML::Node gn = e["gpus"]; gn.IsDefined()) {
        const std::string gp = join_path(p, "gpus");
        yaml.require_seq(gn, gp);
        RecordedGpus r;
        r.pod = pi->second;
        for (size_t k = 0; k < gn.size(); ++k) {
          const int on_node = gpus_on[ni->second];
          const int index =
              static_cast<int>(yaml.integer(gn[k], index_path(gp, k), 0, std::max(on_node - 1, 0)));
          if (on_node == 0 || std::find(r.gpus.begin(), r.gpus.end(), index) != r.gpus.end())
            yaml.fail(gn[k], index_path(gp, k),
                      fmt::format("GPU {} twice or not one of node '{}''s {} GPUs", index, node,
                                  on_node));
          r.gpus.push_back(index);
        }
        gpus.push_back(std::move(r));
      }
    }
    return out;
  } catch (const YAML::Exception& e) {
    throw located_yaml_error(path, e);
  }
}

}  // namespace slicelab
