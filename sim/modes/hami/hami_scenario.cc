#include "sim/modes/hami/hami_scenario.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "sim/modes/hami/hami_share.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

HamiPolicy read_policy(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                       const char* key, HamiPolicy fallback) {
  const YAML::Node v = node[key];
  if (!v.IsDefined()) return fallback;
  const std::string p = join_path(path, key);
  const std::string name = yaml.string(v, p);
  const auto policy = hami_policy_from_name(name);
  if (!policy)
    yaml.fail(v, p, fmt::format("unknown HAMi policy '{}' (known: binpack, spread)", name));
  return *policy;
}

bool names_hami(std::string_view name) {
  return name == "hami" || name.starts_with("hami-");
}

}  // namespace

void read_hami_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                       SharingConfig& config) {
  config.kind = "hami";
  auto s = std::make_shared<HamiSettings>();
  if (node.IsMap()) {
    yaml.check_keys(node, path,
                    {"mode", "device_split_count", "device_memory_scaling", "device_core_scaling",
                     "node_policy", "gpu_policy"});
    s->device_split_count =
        static_cast<int>(yaml.opt_integer(node, path, "device_split_count", 1, kMaxTenantsPerGpu)
                             .value_or(s->device_split_count));
    s->device_memory_scaling =
        yaml.opt_number(node, path, "device_memory_scaling", 0.01, HamiSettings::kMaxMemoryScaling)
            .value_or(s->device_memory_scaling);
    s->device_core_scaling =
        yaml.opt_number(node, path, "device_core_scaling", 0.01, HamiSettings::kMaxCoreScaling)
            .value_or(s->device_core_scaling);
    s->node_policy = read_policy(yaml, node, path, "node_policy", s->node_policy);
    s->gpu_policy = read_policy(yaml, node, path, "gpu_policy", s->gpu_policy);
  }
  config.set_mode_settings(std::move(s));
}

void check_hami_placement(const YamlReader& yaml, const YAML::Node& at, std::string_view path,
                          const PlacementConfig& placement, const SharingConfig& sharing) {
  if (sharing.kind == "hami") return;
  std::string_view named;
  for (const auto& [s, w] : placement.scorers)
    if (names_hami(s)) named = s;
  if (names_hami(placement.picker)) named = placement.picker;
  if (named.empty()) return;
  yaml.fail(at, path,
            fmt::format("placement '{}' is HAMi's scheduler and needs sharing mode hami (this "
                        "policy's sharing is {})",
                        named, sharing.kind));
}

std::unique_ptr<SharingMode> make_hami_mode(const SharingConfig& config) {
  auto settings = config.mode_settings<HamiSettings>();
  return std::make_unique<HamiShare>(
      settings ? std::move(settings) : std::make_shared<const HamiSettings>(), config.interference);
}

}  // namespace slicelab
