#include "sim/topology/topology_yaml.h"

#include <fmt/format.h>

#include <filesystem>

#include "sim/topology/builtin_topologies.h"
#include "sim/topology/nvidia_smi_import.h"

namespace slicelab {

std::shared_ptr<const GpuTopology> read_topology(const YamlReader& yaml, const YAML::Node& node,
                                                 const std::string& path,
                                                 const std::string& scenario_path,
                                                 int gpus_per_node) {
  if (gpus_per_node == 0) yaml.fail(node, path, "a topology needs gpus_per_node of at least 1");
  std::shared_ptr<const GpuTopology> topo;
  std::string what;
  if (node.IsScalar()) {
    const std::string name = yaml.string(node, path);
    topo = builtin_topology(name);
    if (!topo)
      yaml.fail(node, path,
                fmt::format("unknown topology '{}' (known: {}; or {{nvidia_smi: FILE}})", name,
                            builtin_topology_names()));
    what = fmt::format("topology '{}'", name);
  } else if (node.IsMap()) {
    yaml.check_keys(node, path, {"nvidia_smi"});
    const std::string fp = join_path(path, "nvidia_smi");
    const YAML::Node file = yaml.required(node, path, "nvidia_smi");
    const std::string rel = yaml.string(file, fp);
    const auto full = std::filesystem::path(scenario_path).parent_path() / rel;
    std::error_code ec;  // the non-throwing form: a name too long is reported here, located
    if (!std::filesystem::is_regular_file(full, ec))
      yaml.fail(file, fp,
                ec && ec != std::errc::no_such_file_or_directory
                    ? fmt::format("topology file '{}' cannot be used: {}", full.string(),
                                  ec.message())
                    : fmt::format("topology file '{}' does not exist", full.string()));
    topo = load_nvidia_smi_topo(full.string());
    what = fmt::format("'{}'", full.string());
  } else {
    yaml.fail_expected(node, path, "a topology name or {nvidia_smi: FILE}");
  }
  if (topo->gpu_count() != gpus_per_node)
    yaml.fail(node, path,
              fmt::format("{} has {} GPUs but gpus_per_node is {}", what, topo->gpu_count(),
                          gpus_per_node));
  return topo;
}

}  // namespace slicelab
