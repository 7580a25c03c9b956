// The one table of sharing modes a scenario may name (`sharing: {mode: NAME}`), one line per
// mode: its name, a one-line description, its settings reader, its load-time check, its factory
// and its check of every policy's placement. The only place that knows every mode; the seam
// (sim/sharing) and the loader do not.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/interference/calibration.h"
#include "sim/placement/placement_config.h"
#include "sim/sharing/mode_load.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

struct SharingModeEntry {
  std::string_view name;         // SharingConfig::kind, as the scenario spells it
  std::string_view description;  // one line
  // Reads a policy's `sharing:` mapping (or the bare name) whose mode is this one into `config`
  // (config.kind is already set): its keys, and its settings through set_mode_settings.
  void (*read)(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
               SharingConfig& config);
  // Checks the mode's policies against the cluster and workload once all are read, with a
  // located InputError; called once per scenario, also when no policy has the mode. May be null.
  void (*check)(const ModeLoad& load, std::span<const ModePolicy> policies);
  // Throws std::invalid_argument when the config lacks what the mode needs (mig: its settings).
  std::unique_ptr<SharingMode> (*make)(const SharingConfig& config);
  // Checks each policy's placement, whatever its mode, as it is read: fails at `at` when the
  // placement names this mode's plugins under another mode (hami). May be null.
  void (*check_placement)(const YamlReader& yaml, const YAML::Node& at, std::string_view path,
                          const PlacementConfig& placement, const SharingConfig& sharing);
};

std::span<const SharingModeEntry> sharing_modes();
const SharingModeEntry* find_sharing_mode(std::string_view name);  // nullptr if unknown
std::string sharing_mode_names();  // "a, b, c", sorted, for error messages

// Reads a policy's `sharing:` mapping or mode name through its mode's reader (an unknown or
// missing mode fails at the node, naming the known ones).
void read_mode_settings(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                        SharingConfig& config);

// Every mode's placement check of one policy (`at`: its placement node), in the table's order.
void check_mode_placement(const YamlReader& yaml, const YAML::Node& at, std::string_view path,
                          const PlacementConfig& placement, const SharingConfig& sharing);

// Gives `config` its mode's figures from the calibration: its interference coefficients and,
// for the interposer, the launch overhead when the policy set none.
void apply_calibration(const Calibration& cal, SharingConfig& config);

// The mode `config` names, wrapped by the NVIDIA device plugin's rules when its config gave it.
// Throws std::invalid_argument for an unknown mode.
std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config);

}  // namespace slicelab
