// The one table of placement plugins a scenario may name: presets, filters, scorers, device
// pickers and tie-break rules, each with a one-line description for `slicelab plugins` and docs.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <variant>

#include "sim/placement/placement_config.h"

namespace slicelab {

// What the plugins of one policy share while it is built: the environment, and objects that
// several plugins must see as one (the fgd scorer and the fgd device picker ask the same
// FgdModel, so a node is scored for the GPU the pod then gets). One per build_placement call.
class PlacementBuildContext {
 public:
  explicit PlacementBuildContext(PlacementEnvironment env) : env_(env) {}
  const PlacementEnvironment& env() const { return env_; }

  // The one T of this build: made by `make` on first use, the same object afterwards.
  // `make(env)` returns a std::shared_ptr<const T>.
  template <class T, class Make>
  std::shared_ptr<const T> shared(Make&& make) {
    auto& slot = shared_[std::type_index(typeid(T))];
    if (!slot) slot = make(env_);
    return std::static_pointer_cast<const T>(slot);
  }

 private:
  PlacementEnvironment env_;  // a view (span and pointer): cheap to copy, no dangling temporary
  std::map<std::type_index, std::shared_ptr<const void>> shared_;
};

// The kinds in the order `slicelab plugins` and docs/placement.md list them.
enum class PluginKind { kPreset, kFilter, kScorer, kDevicePicker, kTieBreak };

using PresetFactory = PlacementConfig (*)();
using FilterFactory = std::unique_ptr<Filter> (*)(PlacementBuildContext&);
using ScorerFactory = std::unique_ptr<Scorer> (*)(PlacementBuildContext&);
using DevicePickerFactory = std::unique_ptr<DevicePicker> (*)(PlacementBuildContext&);

struct PlacementPlugin {
  std::string_view name;         // as the scenario spells it
  std::string_view description;  // one line, for `slicelab plugins` and docs/placement.md
  // The alternative held is the kind (same order as PluginKind).
  std::variant<PresetFactory, FilterFactory, ScorerFactory, DevicePickerFactory, TieBreak> make;

  PluginKind kind() const { return static_cast<PluginKind>(make.index()); }
};

// The whole table, in PluginKind order and by name within a kind.
std::span<const PlacementPlugin> placement_plugins();
// nullptr if no plugin of that kind has that name.
const PlacementPlugin* find_placement_plugin(PluginKind kind, std::string_view name);
// "a, b, c": the names of one kind, sorted, for "known: ..." in error messages.
std::string placement_plugin_names(PluginKind kind);
// "preset", "filter", "scorer", "device picker", "tie-break rule".
std::string_view plugin_kind_name(PluginKind kind);

}  // namespace slicelab
