// The scenario surface of the VM modes: reads a policy's `sharing: {mode: passthrough | vgpu,
// ...}` block, and checks a fixed vGPU profile against the cluster's GPU models at load time.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <span>
#include <string_view>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "sim/modes/vm/vm_settings.h"
#include "sim/sharing/mode_load.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// True for the modes this reader serves.
bool is_vm_sharing_mode(std::string_view kind);

// `node` is the sharing mapping (or scalar) whose mode is passthrough or vgpu; fills
// config.kind and config.vm.
void read_vm_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                     std::string_view kind, SharingConfig& config);

// Throws an InputError when a fixed vGPU profile is offered by no GPU model of the cluster.
void check_vgpu_profile(const VmSettings& settings, const ClusterSpec& cluster,
                        const GpuCatalog& catalog, std::string_view where);

// The registry's reader for passthrough and vgpu (config.kind names which).
void read_vm_mode(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                  SharingConfig& config);
// check_vgpu_profile for each vgpu or passthrough policy (the registry's load-time check).
void check_vm_policies(const ModeLoad& load, std::span<const ModePolicy> policies);

// Sharing modes passthrough and vgpu from their settings (null: VmSettings' defaults).
std::unique_ptr<SharingMode> make_passthrough_mode(const SharingConfig& config);
std::unique_ptr<SharingMode> make_vgpu_mode(const SharingConfig& config);

}  // namespace slicelab
