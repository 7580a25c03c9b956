#include "sim/modes/plain_modes_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>

#include "sim/modes/interposer/interposer_settings.h"
#include "sim/modes/mode_registry.h"
#include "sim/modes/mps/mps_settings.h"
#include "sim/modes/time_slice/time_slice_settings.h"

namespace slicelab {

void read_plain_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                        SharingConfig& config) {
  if (node.IsMap())
    yaml.check_keys(
        node, path,
        {"mode", "replicas", "context_switch_overhead", "time_slice",
         // mps and interposer (issue 4)
         "fault_propagation", "client_fault_probability", "launch_overhead_ns", "limiter_window",
         // the device plugin's config instead of a mode (read above; listed for did-you-mean)
         "device_plugin_config", "device_plugin"});
  // Bind, never assign: YAML::Node::operator= overwrites the node it refers to, which would
  // turn this mapping into its own mode scalar and drop replicas and overhead unread.
  const YAML::Node mode_node = node.IsMap() ? yaml.required(node, path, "mode") : node;
  const std::string mode_path = node.IsMap() ? join_path(path, "mode") : std::string(path);
  config.kind = yaml.string(mode_node, mode_path);
  if (!find_sharing_mode(config.kind))
    yaml.fail(
        mode_node, mode_path,
        fmt::format("unknown sharing mode '{}' (known: {})", config.kind, sharing_mode_names()));
  if (node.IsMap()) {
    // Which keys each mode takes (a key another mode takes is refused, not ignored).
    auto only_for = [&](const char* key, std::initializer_list<std::string_view> modes) {
      if (!node[key].IsDefined()) return;
      if (std::find(modes.begin(), modes.end(), config.kind) != modes.end()) return;
      std::string names;
      for (const auto m : modes) names += (names.empty() ? "" : " and ") + std::string(m);
      yaml.fail(node[key], join_path(path, key),
                fmt::format("only applies to {}, not {}", names, config.kind));
    };
    only_for("replicas", {"time-slice", "mps"});
    only_for("context_switch_overhead", {"time-slice"});
    only_for("time_slice", {"time-slice"});
    only_for("fault_propagation", {"mps"});
    only_for("client_fault_probability", {"mps"});
    only_for("launch_overhead_ns", {"interposer"});
    only_for("limiter_window", {"interposer"});
    if (config.kind == "mps") {
      auto mps = std::make_shared<MpsSettings>();
      mps->replicas = static_cast<int>(yaml.opt_integer(node, path, "replicas", 1, 48).value_or(0));
      mps->fault_propagation = yaml.opt_number(node, path, "fault_propagation", 0.0, 1.0)
                                   .value_or(mps->fault_propagation);
      mps->client_fault_probability =
          yaml.opt_number(node, path, "client_fault_probability", 0.0, 1.0)
              .value_or(mps->client_fault_probability);
      config.set_mode_settings(std::move(mps));
      return;
    }
    if (config.kind == "interposer") {
      auto ip = std::make_shared<InterposerSettings>();
      ip->launch_overhead_ns = yaml.opt_number(node, path, "launch_overhead_ns", 0.0, 1e7);
      ip->limiter_window_s =
          yaml.opt_duration(node, path, "limiter_window", 0.05).value_or(ip->limiter_window_s);
      if (ip->limiter_window_s > 60)
        yaml.fail(node["limiter_window"], join_path(path, "limiter_window"),
                  "expected at most 60s of simulated limiter time per tenant set");
      config.set_mode_settings(std::move(ip));
      return;
    }
    if (config.kind == "time-slice") {
      auto ts = std::make_shared<TimeSliceSettings>();
      ts->replicas =
          static_cast<int>(yaml.opt_integer(node, path, "replicas", 1, 48).value_or(ts->replicas));
      ts->context_switch_overhead =
          yaml.opt_number(node, path, "context_switch_overhead", 0.0, 0.99)
              .value_or(ts->context_switch_overhead);
      ts->time_slice_s =
          yaml.opt_duration(node, path, "time_slice", 1e-4).value_or(ts->time_slice_s);
      if (ts->time_slice_s > 1.0)
        yaml.fail(node["time_slice"], join_path(path, "time_slice"),
                  "expected a time slice of at most 1s");
      config.set_mode_settings(std::move(ts));
    }
  }
}

}  // namespace slicelab
