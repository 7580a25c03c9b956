#include "sim/placement/placement_config.h"

#include <stdexcept>
#include <utility>
#include <variant>

#include "sim/placement/plugin_registry.h"

namespace slicelab {
namespace {

// The factories in sim/placement/plugin_registry.cc, without an environment: for name checks
// and tests (FGD then gets an empty target workload).
template <class Factory>
auto make_plugin(PluginKind kind, std::string_view name, PlacementBuildContext& ctx)
    -> decltype(std::declval<Factory>()(ctx)) {
  const PlacementPlugin* p = find_placement_plugin(kind, name);
  if (!p) return nullptr;
  return std::get<Factory>(p->make)(ctx);
}

}  // namespace

std::optional<PlacementConfig> placement_preset(std::string_view name) {
  const PlacementPlugin* p = find_placement_plugin(PluginKind::kPreset, name);
  if (!p) return std::nullopt;
  PlacementConfig c = std::get<PresetFactory>(p->make)();
  c.preset = std::string(name);
  return c;
}

std::string placement_preset_names() {
  return placement_plugin_names(PluginKind::kPreset);
}

std::unique_ptr<Filter> make_filter(std::string_view name) {
  PlacementBuildContext ctx{PlacementEnvironment{}};
  return make_plugin<FilterFactory>(PluginKind::kFilter, name, ctx);
}

std::unique_ptr<Scorer> make_scorer(std::string_view name) {
  PlacementBuildContext ctx{PlacementEnvironment{}};
  return make_plugin<ScorerFactory>(PluginKind::kScorer, name, ctx);
}

std::unique_ptr<DevicePicker> make_picker(std::string_view name) {
  PlacementBuildContext ctx{PlacementEnvironment{}};
  return make_plugin<DevicePickerFactory>(PluginKind::kDevicePicker, name, ctx);
}

std::string filter_names() {
  return placement_plugin_names(PluginKind::kFilter);
}
std::string scorer_names() {
  return placement_plugin_names(PluginKind::kScorer);
}
std::string picker_names() {
  return placement_plugin_names(PluginKind::kDevicePicker);
}

PlacementPolicy build_placement(const PlacementConfig& config, const PlacementEnvironment& env) {
  // One context per policy: plugins that must agree (the fgd scorer and picker) share through it.
  PlacementBuildContext ctx(env);
  std::vector<std::unique_ptr<Filter>> filters;
  for (const auto& f : config.filters) {
    auto p = make_plugin<FilterFactory>(PluginKind::kFilter, f, ctx);
    if (!p) throw std::invalid_argument("unknown filter " + f);
    filters.push_back(std::move(p));
  }
  std::vector<WeightedScorer> scorers;
  for (const auto& [name, weight] : config.scorers) {
    auto p = make_plugin<ScorerFactory>(PluginKind::kScorer, name, ctx);
    if (!p) throw std::invalid_argument("unknown scorer " + name);
    scorers.push_back({std::move(p), weight});
  }
  auto picker = make_plugin<DevicePickerFactory>(PluginKind::kDevicePicker, config.picker, ctx);
  if (!picker) throw std::invalid_argument("unknown device picker " + config.picker);
  PlacementPolicy policy(std::move(filters), std::move(scorers), std::move(picker),
                         config.tie_break);
  if (config.percentage_of_nodes_to_score < 0 || config.percentage_of_nodes_to_score > 100)
    throw std::invalid_argument("percentage_of_nodes_to_score must be in 0..100");
  policy.set_node_sampling(config.percentage_of_nodes_to_score);
  return policy;
}

}  // namespace slicelab
