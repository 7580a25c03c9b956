// The resources one node's plugin serves, built from its config and the GPUs NVML found: one
// ResourcePlugin per advertised resource name, for `serve device-plugin` and `cdi generate`.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/resource_plugin.h"
#include "backends/local/gpu_detection.h"

namespace slicelab::device_plugin {

class PodSource;  // pod_source.h: finds the pod an interposer share is allocated for

// Throws InputError when the config does not fit the GPUs (a resource naming a GPU that is not
// there, MIG strategy single with mixed profiles, ...). `pods` is needed for interposer mode
// only (may be null otherwise); `config`, `health` and `pods` must outlive the resources (they
// keep references to them).
std::vector<std::unique_ptr<ResourcePlugin>> make_node_resources(const NodePluginConfig& config,
                                                                 std::span<const DetectedGpu> gpus,
                                                                 const DeviceHealth& health,
                                                                 PodSource* pods);

}  // namespace slicelab::device_plugin
