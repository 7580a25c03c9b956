#include "cli/plugins_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/modes/mode_registry.h"
#include "sim/placement/plugin_registry.h"

namespace slicelab {
namespace {

using Row = std::pair<std::string_view, std::string_view>;  // name, description

// Where each kind goes in a scenario, for the section headings.
std::string_view scenario_key(PluginKind kind) {
  switch (kind) {
    case PluginKind::kPreset:
      return "placement: NAME, or placement: {preset: NAME}";
    case PluginKind::kFilter:
      return "placement: {filters: [NAME, ...]}";
    case PluginKind::kScorer:
      return "placement: {scorers: [{name: NAME, weight: W}, ...]}";
    case PluginKind::kDevicePicker:
      return "placement: {device_picker: NAME}";
    case PluginKind::kTieBreak:
      return "placement: {tie_break: NAME}";
  }
  return "";
}

void section(std::string& out, std::string_view heading, std::vector<Row> rows, size_t width) {
  std::sort(rows.begin(), rows.end());
  out += fmt::format("{}\n", heading);
  for (const auto& [name, description] : rows)
    out += fmt::format("  {:<{}}  {}\n", name, width, description);
}

}  // namespace

PluginsCommand::PluginsCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("plugins",
                            "List the placement presets, filters, scorers, device pickers, "
                            "tie-break rules and sharing modes a scenario may name");
  add_format_option(*cmd_, format_);
}

int PluginsCommand::run() const {
  if (format_.json())
    std::printf("%s\n", plugins_json().dump(2).c_str());
  else
    std::fputs(plugins_listing().c_str(), stdout);
  return 0;
}

nlohmann::ordered_json plugins_json() {
  nlohmann::ordered_json j;
  j["format"] = "slicelab.plugins/1";
  nlohmann::ordered_json placement = nlohmann::ordered_json::array();
  for (const PluginKind kind : {PluginKind::kPreset, PluginKind::kFilter, PluginKind::kScorer,
                                PluginKind::kDevicePicker, PluginKind::kTieBreak}) {
    std::vector<Row> of_kind;
    for (const auto& p : placement_plugins())
      if (p.kind() == kind) of_kind.emplace_back(p.name, p.description);
    std::sort(of_kind.begin(), of_kind.end());
    for (const auto& [name, description] : of_kind)
      placement.push_back(
          {{"name", name}, {"kind", plugin_kind_name(kind)}, {"description", description}});
  }
  j["placement"] = std::move(placement);
  std::vector<Row> modes;
  for (const auto& m : sharing_modes()) modes.emplace_back(m.name, m.description);
  std::sort(modes.begin(), modes.end());
  nlohmann::ordered_json sharing = nlohmann::ordered_json::array();
  for (const auto& [name, description] : modes)
    sharing.push_back({{"name", name}, {"description", description}});
  j["sharing"] = std::move(sharing);
  return j;
}

std::string plugins_listing() {
  size_t width = 0;
  for (const auto& p : placement_plugins()) width = std::max(width, p.name.size());
  for (const auto& m : sharing_modes()) width = std::max(width, m.name.size());
  std::string out = "Placement (docs/placement.md)\n";
  for (const PluginKind kind : {PluginKind::kPreset, PluginKind::kFilter, PluginKind::kScorer,
                                PluginKind::kDevicePicker, PluginKind::kTieBreak}) {
    std::vector<Row> rows;
    for (const auto& p : placement_plugins())
      if (p.kind() == kind) rows.emplace_back(p.name, p.description);
    out += "\n";
    section(out, fmt::format("{}s ({})", plugin_kind_name(kind), scenario_key(kind)),
            std::move(rows), width);
  }
  std::vector<Row> modes;
  for (const auto& m : sharing_modes()) modes.emplace_back(m.name, m.description);
  out += "\nSharing (docs/simulator.md, docs/sharing-models.md, docs/mig.md)\n\n";
  section(out, "sharing modes (sharing: NAME, or sharing: {mode: NAME, ...})", std::move(modes),
          width);
  return out;
}

}  // namespace slicelab
