#include "sim/modes/mig/mig_scenario.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "sim/modes/mig/mig_layout.h"
#include "sim/modes/mig/mig_sharing.h"
#include "workloads/input_error.h"

namespace slicelab {

void read_mig_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      SharingConfig& config) {
  auto settings = std::make_shared<MigSettings>();
  if (node.IsMap()) {
    yaml.check_keys(node, path, {"mode", "layout", "mig_config", "dynamic", "reconfigure_s"});
    if (const YAML::Node d = node["dynamic"]; d.IsDefined())
      settings->dynamic = yaml.boolean(d, join_path(path, "dynamic"));
    if (const YAML::Node r = node["reconfigure_s"]; r.IsDefined()) {
      if (!settings->dynamic)
        yaml.fail(r, join_path(path, "reconfigure_s"), "only applies with dynamic: true");
      settings->reconfigure_s = yaml.duration(r, join_path(path, "reconfigure_s"), 0.0);
    }
  }
  const YAML::Node layout = node.IsMap() ? node["layout"] : YAML::Node();
  const YAML::Node cfg = node.IsMap() ? node["mig_config"] : YAML::Node();
  if (!layout.IsDefined()) {
    if (!settings->dynamic)
      yaml.fail(node, path,
                "mode mig needs 'layout' (a mig-parted configuration name) and 'mig_config', "
                "or 'dynamic: true'");
    if (cfg.IsDefined())
      yaml.fail(cfg, join_path(path, "mig_config"), "needs 'layout' to name a configuration");
  } else {
    const std::string lp = join_path(path, "layout");
    settings->layout = yaml.string(layout, lp);
    if (!cfg.IsDefined())
      yaml.fail(layout, lp, "needs 'mig_config' (a mig-parted file or inline mig-configs)");
    const std::string cp = join_path(path, "mig_config");
    MigPartedConfig parted;
    if (cfg.IsScalar()) {
      const auto file = std::filesystem::path(yaml.file()).parent_path() / cfg.Scalar();
      yaml.require_file(cfg, cp, file, "mig-parted file");
      parted = load_mig_parted_file(file.string());
    } else {
      parted = read_mig_parted(yaml, cfg, cp);
    }
    const auto it = parted.configs.find(settings->layout);
    if (it == parted.configs.end())
      yaml.fail(layout, lp,
                fmt::format("no mig-parted configuration '{}' (known: {})", settings->layout,
                            parted.names()));
    settings->rules = it->second;
  }
  config.set_mode_settings(std::move(settings));
}

void check_mig_layouts(const MigSettings& settings, const ClusterSpec& cluster,
                       const GpuCatalog& catalog) {
  for (const NodeGroup& group : cluster.groups) {
    if (group.gpus_per_node == 0) continue;
    const std::string& model = catalog.models()[group.gpu_model].name;
    const MigTable* table = mig_table_for(model);
    for (int gpu = 0; gpu < group.gpus_per_node; ++gpu) {
      for (const MigDeviceRule& rule : settings.rules) {
        if (!rule.applies_to(gpu, model)) continue;
        if (!rule.mig_enabled) break;
        if (!table)
          throw InputError(
              fmt::format("{}: node group '{}': {} has no MIG", rule.where, group.name, model));
        try {
          place_layout(*table, rule.mig_devices);
        } catch (const MigLayoutError& e) {
          throw InputError(
              fmt::format("{}: node group '{}' GPU {}: {}", rule.where, group.name, gpu, e.what()));
        }
        break;  // the first entry that names a GPU decides its layout
      }
    }
  }
}

void check_mig_policies(const ModeLoad& load, std::span<const ModePolicy> policies) {
  for (const ModePolicy& p : policies)
    if (const auto settings = p.sharing->mode_settings<MigSettings>())
      check_mig_layouts(*settings, load.cluster, load.catalog);
}

std::unique_ptr<SharingMode> make_mig_mode(const SharingConfig& config) {
  auto settings = config.mode_settings<MigSettings>();
  if (!settings) throw std::invalid_argument("sharing mode mig needs its MIG settings");
  return std::make_unique<MigSharing>(std::move(settings));
}

}  // namespace slicelab
