// A policy's sharing given as the NVIDIA device plugin's config file: the file is read by the one
// reader of that format (workloads/inputs/device_plugin_config.h); this is the simulator's
// translation of it into a sharing mode, refusing what the simulator cannot model;
// docs/device-plugin-config.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "sim/sharing/device_plugin_settings.h"
#include "sim/sharing/sharing_config.h"
#include "workloads/inputs/device_plugin_config.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// True when a policy's sharing mapping names a device plugin config (`device_plugin_config:
// FILE` or `device_plugin: {...}`) rather than a mode.
bool is_device_plugin_sharing(const YAML::Node& sharing);

// Reads that mapping into `config`: the mode (time-slice, mps, or whole-card when the config
// shares nothing), its replicas and config.device_plugin. A relative file is read beside the
// scenario (yaml.file()); it may be the config itself or a ConfigMap holding it under `data`.
void read_device_plugin_sharing(const YamlReader& yaml, const YAML::Node& node,
                                std::string_view path, SharingConfig& config);

// What the simulator takes from a config: one resource, nvidia.com/gpu, on every GPU. What it
// cannot model yet (a subset of devices, several resources, MIG, the node plugin's own
// `slicelab` section) is refused with "not supported yet: ..." where the file says it.
DevicePluginSettings simulator_settings(const DevicePluginConfig& config);

}  // namespace slicelab
