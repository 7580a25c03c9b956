// The scenario surface of the VM modes: reads a policy's `sharing: {mode: passthrough | vgpu,
// ...}` block, and checks a fixed vGPU profile against the cluster's GPU models at load time.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "sim/sharing/sharing_config.h"
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

}  // namespace slicelab
