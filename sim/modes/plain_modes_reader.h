// The reader of the modes without settings of their own (whole-card, time-slice, gpu-share, mps,
// interposer): one list of keys, each refused under the modes it does not apply to.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "sim/sharing/sharing_config.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// Reads `node` (a mapping or a bare mode name) into config: its mode (failing, with the known
// names, when the registry has none of that name) and the keys that mode takes.
void read_plain_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                        SharingConfig& config);

}  // namespace slicelab
