// The scenario surface of MIG: reads a policy's `sharing: {mode: mig, ...}` block and checks
// its layout against every MIG GPU of the cluster, so an invalid layout fails at load time.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <span>
#include <string_view>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/sharing/mode_load.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// `node` is the sharing mapping whose mode is mig; fills config.mig. A relative mig_config
// file is read beside the scenario file (yaml.file()).
void read_mig_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      SharingConfig& config);

// Gives every GPU of every node group its layout from the settings' rules and throws a located
// InputError naming the conflict ("... 1g.6gb not on H100-80GB") when one does not fit.
void check_mig_layouts(const MigSettings& settings, const ClusterSpec& cluster,
                       const GpuCatalog& catalog);

// check_mig_layouts for each mig policy (the registry's load-time check).
void check_mig_policies(const ModeLoad& load, std::span<const ModePolicy> policies);

// Sharing mode mig from its settings; throws std::invalid_argument without them.
std::unique_ptr<SharingMode> make_mig_mode(const SharingConfig& config);

}  // namespace slicelab
