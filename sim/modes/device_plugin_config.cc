#include "sim/modes/device_plugin_config.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include "sim/modes/mps/mps_settings.h"
#include "sim/modes/time_slice/time_slice_settings.h"

namespace slicelab {
namespace {

constexpr std::string_view kGpuResource = "nvidia.com/gpu";

[[noreturn]] void not_supported(std::string_view at, std::string_view why) {
  refuse_device_plugin_value(at, fmt::format("not supported yet: {}", why));
}

}  // namespace

DevicePluginSettings simulator_settings(const DevicePluginConfig& c) {
  if (!c.mig_strategy_at.empty() && c.mig_strategy != "none")
    not_supported(c.mig_strategy_at,
                  fmt::format("migStrategy '{}' (sharing MIG devices through the device plugin); "
                              "for MIG write `sharing: {{mode: mig, ...}}` (docs/mig.md)",
                              c.mig_strategy));
  if (!c.resources_at.empty())
    not_supported(c.resources_at,
                  "customising resources (the device plugin itself ignores it and warns)");
  if (!c.slicelab_at.empty())
    not_supported(c.slicelab_at,
                  "the node plugin's own section (interposer shares and paths on a node); for "
                  "interposer shares write `sharing: {mode: interposer, ...}` or "
                  "`{mode: hami, ...}`");
  DevicePluginSettings s;
  s.source = c.source;
  s.resource = std::string(kGpuResource);
  s.advertised = s.resource;
  s.strategy = c.strategy;
  s.fail_requests_greater_than_one = c.fail_requests_greater_than_one;
  for (size_t i = 0; i < c.resources.size(); ++i) {
    const DevicePluginReplicated& r = c.resources[i];
    if (i > 0)
      not_supported(r.at, fmt::format("{} resources in {} (the simulator shares one resource, "
                                      "{}, alike on every GPU)",
                                      c.resources.size(), c.resources_path, kGpuResource));
    if (r.name.starts_with("nvidia.com/mig-"))
      not_supported(r.name_at,
                    fmt::format("sharing MIG devices ({}); the simulator time-slices or MPS-shares "
                                "whole GPUs (for MIG write `sharing: {{mode: mig, ...}}`)",
                                r.name));
    if (r.name != kGpuResource)
      not_supported(r.name_at, fmt::format("sharing {} (the simulator shares {}, whole GPUs)",
                                           r.name, kGpuResource));
    if (!r.devices.empty())
      not_supported(r.devices_at,
                    "devices other than 'all' (sharing a subset of the GPUs); the device "
                    "plugin itself ignores it today and shares every GPU: write devices: all "
                    "or leave it out");
    const std::string advertised = c.rename_by_default ? r.name + ".shared" : r.name;
    if (!r.rename.empty() && r.rename != advertised)
      not_supported(r.rename_at,
                    fmt::format("rename to '{}' (the device plugin ignores it too and warns); "
                                "renameByDefault: true advertises {}.shared",
                                r.rename_text, r.name));
    s.resource = r.name;
    s.advertised = advertised;
    s.replicas = r.replicas;
  }
  return s;
}

bool is_device_plugin_sharing(const YAML::Node& sharing) {
  return sharing.IsMap() &&
         (sharing["device_plugin_config"].IsDefined() || sharing["device_plugin"].IsDefined());
}

void read_device_plugin_sharing(const YamlReader& yaml, const YAML::Node& node,
                                std::string_view path, SharingConfig& config) {
  if (const YAML::Node m = node["mode"]; m.IsDefined())
    yaml.fail(m, join_path(path, "mode"),
              "the device plugin config decides the mode (time-slice from sharing.timeSlicing, "
              "mps from sharing.mps); leave 'mode' out");
  yaml.check_keys(node, path,
                  {"device_plugin_config", "device_plugin", "config_name",
                   "context_switch_overhead", "fault_propagation", "client_fault_probability"});
  const YAML::Node file = node["device_plugin_config"];
  const YAML::Node inline_config = node["device_plugin"];
  if (file.IsDefined() && inline_config.IsDefined())
    yaml.fail(inline_config, join_path(path, "device_plugin"),
              "give either 'device_plugin_config' (a file) or 'device_plugin' (inline), not both");
  const YAML::Node name_node = node["config_name"];
  std::optional<std::string> entry;
  if (name_node.IsDefined()) {
    entry = yaml.string(name_node, join_path(path, "config_name"));
    if (!file.IsDefined())
      yaml.fail(name_node, join_path(path, "config_name"),
                "only applies to a ConfigMap file given as device_plugin_config");
  }
  DevicePluginSettings s;
  if (file.IsDefined()) {
    const std::string fp = join_path(path, "device_plugin_config");
    const std::string rel = yaml.string(file, fp);
    const auto full = std::filesystem::path(yaml.file()).parent_path() / rel;
    yaml.require_file(file, fp, full, "device plugin config");
    // Built whole: assigning to a YAML::Node copies into it, and name_node may be undefined.
    const DevicePluginConfigEntry e{entry, &yaml, name_node, join_path(path, "config_name")};
    s = simulator_settings(read_device_plugin_config_file(full.string(), rel, e));
  } else {
    s = simulator_settings(
        read_device_plugin_config(yaml, inline_config, join_path(path, "device_plugin"), "inline"));
  }
  config.kind = s.strategy == "mps"           ? "mps"
                : s.strategy == "timeSlicing" ? "time-slice"
                                              : "whole-card";
  // The simulator's own settings of the mode, beside the plugin's config.
  auto only_for = [&](const char* key, std::string_view kind) {
    if (!node[key].IsDefined() || config.kind == kind) return;
    yaml.fail(
        node[key], join_path(path, key),
        fmt::format("only applies to {}; this device plugin config gives {}", kind, config.kind));
  };
  only_for("context_switch_overhead", "time-slice");
  only_for("fault_propagation", "mps");
  only_for("client_fault_probability", "mps");
  // The plugin's replicas and the simulator's keys become the mode's own settings.
  if (config.kind == "time-slice") {
    auto ts = std::make_shared<TimeSliceSettings>();
    ts->replicas = s.replicas;
    ts->context_switch_overhead = yaml.opt_number(node, path, "context_switch_overhead", 0.0, 0.99)
                                      .value_or(ts->context_switch_overhead);
    config.set_mode_settings(std::move(ts));
  } else if (config.kind == "mps") {
    auto mps = std::make_shared<MpsSettings>();
    mps->replicas = s.replicas;
    mps->fault_propagation =
        yaml.opt_number(node, path, "fault_propagation", 0.0, 1.0).value_or(mps->fault_propagation);
    mps->client_fault_probability =
        yaml.opt_number(node, path, "client_fault_probability", 0.0, 1.0)
            .value_or(mps->client_fault_probability);
    config.set_mode_settings(std::move(mps));
  }
  config.device_plugin = std::make_shared<const DevicePluginSettings>(std::move(s));
}

}  // namespace slicelab
