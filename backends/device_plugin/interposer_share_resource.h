// HAMi-style interposer shares: each GPU advertised as split_count virtual devices; Allocate
// caps the container's memory and cores through the interposer, as the pod's assignment says.
#pragma once

#include <memory>
#include <span>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/pod_source.h"
#include "backends/device_plugin/resource_plugin.h"
#include "backends/local/gpu_detection.h"

namespace slicelab::device_plugin {

std::unique_ptr<ResourcePlugin> make_interposer_share_resource(const NodePluginConfig& config,
                                                               std::span<const DetectedGpu> gpus,
                                                               const DeviceHealth& health,
                                                               PodSource& pods);

}  // namespace slicelab::device_plugin
