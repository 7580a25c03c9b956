#include "sim/modes/vm/vm_scenario.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "sim/modes/vm/passthrough.h"
#include "sim/modes/vm/vgpu_profiles.h"
#include "sim/modes/vm/vgpu_sharing.h"
#include "workloads/input_error.h"

namespace slicelab {

bool is_vm_sharing_mode(std::string_view kind) {
  return kind == "passthrough" || kind == "vgpu";
}

void read_vm_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                     std::string_view kind, SharingConfig& config) {
  config.kind = std::string(kind);
  auto s = std::make_shared<VmSettings>();
  if (node.IsMap()) {
    if (kind == "passthrough")
      yaml.check_keys(node, path, {"mode", "boot"});
    else
      yaml.check_keys(node, path,
                      {"mode", "boot", "scheduler", "time_slice_ms", "switch_cost_ms", "profile"});
    s->boot_s = yaml.opt_duration(node, path, "boot", 0.0).value_or(s->boot_s);
    if (const YAML::Node sch = node["scheduler"]; sch.IsDefined()) {
      const std::string sp = join_path(path, "scheduler");
      const std::string name = yaml.string(sch, sp);
      if (name == "best-effort")
        s->scheduler = VgpuScheduler::kBestEffort;
      else if (name == "equal-share")
        s->scheduler = VgpuScheduler::kEqualShare;
      else if (name == "fixed-share")
        s->scheduler = VgpuScheduler::kFixedShare;
      else
        yaml.fail(sch, sp,
                  fmt::format("unknown vGPU scheduler '{}' (known: best-effort, equal-share, "
                              "fixed-share)",
                              name));
    }
    s->time_slice_ms =
        yaml.opt_number(node, path, "time_slice_ms", 0.01, 1000.0).value_or(s->time_slice_ms);
    s->switch_cost_ms =
        yaml.opt_number(node, path, "switch_cost_ms", 0.0, 1000.0).value_or(s->switch_cost_ms);
    if (const YAML::Node pr = node["profile"]; pr.IsDefined()) {
      const std::string pp = join_path(path, "profile");
      s->profile = yaml.string(pr, pp);
      if (!is_known_vgpu_size(s->profile))
        yaml.fail(pr, pp,
                  fmt::format("unknown vGPU profile size '{}' (a frame buffer in GB and C, as in "
                              "10C; docs/reference/vgpu-profiles.md lists them)",
                              s->profile));
    }
  }
  config.set_mode_settings(std::move(s));
}

void check_vgpu_profile(const VmSettings& settings, const ClusterSpec& cluster,
                        const GpuCatalog& catalog, std::string_view where) {
  if (settings.profile.empty()) return;
  std::string offered;
  for (const NodeGroup& group : cluster.groups) {
    if (group.gpus_per_node == 0) continue;
    const std::string& model = catalog.models()[group.gpu_model].name;
    const VgpuTable* table = vgpu_table_for(model);
    if (!table) continue;
    for (const VgpuProfile& p : table->profiles)
      if (p.size() == settings.profile) return;
    offered += fmt::format("{}{}: {}", offered.empty() ? "" : "; ", model, vgpu_size_names(*table));
  }
  throw InputError(fmt::format("{}: no GPU model of the cluster offers vGPU profile {} ({})", where,
                               settings.profile,
                               offered.empty() ? "no model has vGPU profiles" : offered));
}

void read_vm_mode(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                  SharingConfig& config) {
  const std::string kind = config.kind;
  read_vm_sharing(yaml, node, path, kind, config);
}

void check_vm_policies(const ModeLoad& load, std::span<const ModePolicy> policies) {
  for (const ModePolicy& p : policies)
    if (const auto settings = p.sharing->mode_settings<VmSettings>())
      check_vgpu_profile(*settings, load.cluster, load.catalog,
                         fmt::format("{}: {}", load.yaml.file(),
                                     index_path("policies", p.index) + ".sharing.profile"));
}

std::unique_ptr<SharingMode> make_passthrough_mode(const SharingConfig& config) {
  const auto settings = config.mode_settings<VmSettings>();
  return std::make_unique<Passthrough>(settings ? settings->boot_s : VmSettings::kDefaultBootS);
}

std::unique_ptr<SharingMode> make_vgpu_mode(const SharingConfig& config) {
  auto settings = config.mode_settings<VmSettings>();
  return std::make_unique<VgpuSharing>(
      settings ? std::move(settings) : std::make_shared<const VmSettings>(), config.interference);
}

}  // namespace slicelab
