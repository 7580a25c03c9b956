#include "sim/modes/dra/dra_scenario.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/modes/dra/dra_claim_state.h"
#include "sim/modes/dra/dra_files.h"
#include "sim/modes/dra/dra_sharing.h"
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
  config.set_mode_settings(std::move(s));
}

void load_dra_objects(const ModeLoad& load, std::span<const ModePolicy> policies) {
  const YamlReader& yaml = load.yaml;
  const YAML::Node& root = load.root;
  std::vector<std::string> common;
  const YAML::Node block = root["dra"];
  if (block.IsDefined()) {
    yaml.require_map(block, "dra");
    yaml.check_keys(block, "dra", {"files"});
    common = read_files(yaml, yaml.required(block, "dra", "files"), "dra.files");
  }
  std::map<std::vector<std::string>, LoadedDra> loaded;
  bool used = false;
  for (const ModePolicy& policy : policies) {
    SharingConfig& sharing = *policy.sharing;
    const auto read = sharing.mode_settings<DraSettings>();
    if (!read) continue;
    used = true;
    auto settings = std::make_shared<DraSettings>(*read);
    std::vector<std::string> files = common;
    files.insert(files.end(), settings->files.begin(), settings->files.end());
    const std::string path = index_path("policies", policy.index) + ".sharing";
    const YAML::Node at = root["policies"][policy.index]["sharing"];
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
    const ClusterState cluster(load.cluster, load.catalog, DraClaimState::kUnitsPerGpu);
    const DraClaimState check(*settings, cluster, load.pods);
    sharing.set_mode_settings(std::move(settings));
  }
  if (block.IsDefined() && !used)
    yaml.fail(block, "dra", "no policy has sharing mode dra to use these objects");
}

std::unique_ptr<SharingMode> make_dra_mode(const SharingConfig& config) {
  auto settings = config.mode_settings<DraSettings>();
  if (!settings) throw std::invalid_argument("sharing mode dra needs its DRA objects");
  return std::make_unique<DraSharing>(std::move(settings), config.interference);
}

}  // namespace slicelab
