#include "sim/dra/dra_scenario.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "sim/dra/dra_claim_state.h"
#include "sim/dra/dra_files.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

std::vector<std::string> read_files(const YamlReader& yaml, const YAML::Node& node,
                                    const std::string& path) {
  std::vector<std::string> out;
  const auto dir = std::filesystem::path(yaml.file()).parent_path();
  const std::vector<std::string> names = yaml.string_list(node, path);
  for (size_t i = 0; i < names.size(); ++i) {
    const auto file = dir / names[i];
    yaml.require_file(node[i], index_path(path, i), file, "DRA objects file");
    out.push_back(file.string());
  }
  return out;
}

}  // namespace

void read_dra_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      SharingConfig& config) {
  config.kind = "dra";
  auto s = std::make_shared<DraSettings>();
  if (node.IsMap()) {
    yaml.check_keys(node, path,
                    {"mode", "files", "device_class", "request_memory", "namespace",
                     "context_switch_overhead", "fault_propagation", "max_steps"});
    if (const YAML::Node f = node["files"]; f.IsDefined())
      s->files = read_files(yaml, f, join_path(path, "files"));
    s->device_class = yaml.opt_string(node, path, "device_class").value_or("");
    if (const YAML::Node r = node["request_memory"]; r.IsDefined())
      s->request_memory = yaml.boolean(r, join_path(path, "request_memory"));
    s->namespace_name = yaml.opt_string(node, path, "namespace").value_or("default");
    s->context_switch_overhead =
        yaml.opt_number(node, path, "context_switch_overhead", 0.0, 0.5).value_or(0.05);
    s->fault_propagation = yaml.opt_number(node, path, "fault_propagation", 0.0, 1.0).value_or(0.5);
    // The ceiling keeps one attempt of the search within tens of milliseconds (docs/dra.md).
    s->max_steps =
        yaml.opt_integer(node, path, "max_steps", 1, DraStructuredAllocator::kMaxMaxSteps)
            .value_or(DraStructuredAllocator::kDefaultMaxSteps);
  }
  config.dra = std::move(s);
}

void load_dra_objects(const YamlReader& yaml, const YAML::Node& root, Scenario& scenario) {
  std::vector<PolicySpec>& policies = scenario.policies;
  std::vector<std::string> common;
  const YAML::Node block = root["dra"];
  if (block.IsDefined()) {
    yaml.require_map(block, "dra");
    yaml.check_keys(block, "dra", {"files"});
    common = read_files(yaml, yaml.required(block, "dra", "files"), "dra.files");
  }
  std::map<std::vector<std::string>, LoadedDra> loaded;
  bool used = false;
  for (size_t i = 0; i < policies.size(); ++i) {
    SharingConfig& sharing = policies[i].sharing;
    if (sharing.kind != "dra" || !sharing.dra) continue;
    used = true;
    auto settings = std::make_shared<DraSettings>(*sharing.dra);
    std::vector<std::string> files = common;
    files.insert(files.end(), settings->files.begin(), settings->files.end());
    const std::string path = index_path("policies", i) + ".sharing";
    const YAML::Node at = root["policies"][i]["sharing"];
    if (files.empty())
      yaml.fail(at, path, "mode dra needs DRA objects: a top-level dra: {files: [...]} or files:");
    auto it = loaded.find(files);
    if (it == loaded.end()) it = loaded.emplace(files, load_dra_files(files)).first;
    settings->model = it->second.model;
    settings->selectors = it->second.selectors;
    if (!settings->device_class.empty() &&
        settings->model->find_device_class(settings->device_class) == nullptr) {
      yaml.fail(
          at["device_class"], join_path(path, "device_class"),
          fmt::format("no DeviceClass {} among the DRA objects read", settings->device_class));
    }
    // What a run would find only when it starts: devices on unknown nodes or beyond a node's
    // GPUs, pods naming claims that do not exist.
    const ClusterState cluster(scenario.cluster, scenario.catalog, DraClaimState::kUnitsPerGpu);
    const DraClaimState check(*settings, cluster, scenario.pods);
    sharing.dra = std::move(settings);
  }
  if (block.IsDefined() && !used)
    yaml.fail(block, "dra", "no policy has sharing mode dra to use these objects");
}

}  // namespace slicelab
