// The scenario surface of sharing mode hami: reads a policy's `sharing: {mode: hami, ...}`
// block, and refuses HAMi's placement plugins under any other sharing mode.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string_view>

#include "sim/modes/hami/hami_settings.h"
#include "sim/placement/placement_config.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// `node` is the sharing mapping (or scalar) whose mode is hami; fills config.kind and
// config.hami.
void read_hami_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                       SharingConfig& config);

// Fails at `at` when the placement names a HAMi scorer or picker and the sharing is not hami.
void check_hami_placement(const YamlReader& yaml, const YAML::Node& at, std::string_view path,
                          const PlacementConfig& placement, const SharingConfig& sharing);

// Sharing mode hami from its settings (null: HAMi's defaults).
std::unique_ptr<SharingMode> make_hami_mode(const SharingConfig& config);

}  // namespace slicelab
