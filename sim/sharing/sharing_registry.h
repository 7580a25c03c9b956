// The one table of sharing modes a scenario may name (`sharing: {mode: NAME}`), each with a
// one-line description for `slicelab plugins` and docs, and the factory make_sharing_mode uses.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/sharing/sharing_config.h"

namespace slicelab {

struct SharingModeEntry {
  std::string_view name;         // SharingConfig::kind, as the scenario spells it
  std::string_view description;  // one line
  // Throws std::invalid_argument when the config lacks what the mode needs (mig: its settings).
  std::unique_ptr<SharingMode> (*make)(const SharingConfig& config);
};

std::span<const SharingModeEntry> sharing_modes();
const SharingModeEntry* find_sharing_mode(std::string_view name);  // nullptr if unknown
std::string sharing_mode_names();  // "a, b, c", sorted, for error messages

}  // namespace slicelab
