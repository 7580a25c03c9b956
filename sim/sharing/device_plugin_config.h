// The NVIDIA device plugin's config file (k8s-device-plugin api/config/v1: `version: v1`, `flags`,
// `sharing.timeSlicing` / `sharing.mps`) read as a policy's sharing mode;
// docs/device-plugin-config.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "sim/sharing/device_plugin_settings.h"
#include "sim/sharing/sharing_config.h"
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

// The keys NVIDIA's config allows under `flags`, `flags.plugin` and `flags.gfd` (config/v1
// flags.go), checked for spelling with a did-you-mean: the scenario's reader and the node
// plugin's (backends/device_plugin) read the same file.
void check_device_plugin_flag_keys(const YamlReader& yaml, const YAML::Node& flags,
                                   std::string_view path);

// A resource name of the config (`sharing.*.resources[].name` and `.rename`, and the node
// plugin's `slicelab.interposer.resource`), as NVIDIA's NewResourceName and the kubelet read it:
// a bare name gets the nvidia.com/ prefix; the result must be at most 63 characters, its part
// after the '/' a DNS-1123 subdomain (NVIDIA's check: "nvidia.com/g pu" and "nvidia.com/GPU"
// fail it), and an extended resource name (the kubelet's check when the plugin registers).
// Returns the qualified name; fails at `node` with the rule it breaks.
std::string read_device_plugin_resource_name(const YamlReader& yaml, const YAML::Node& node,
                                             std::string_view path);

// One config document: the plugin's file, a ConfigMap entry, or the inline mapping. What the
// simulator cannot model yet (a subset of devices, several resources, MIG resources) is refused
// with "not supported yet: KEY"; unknown keys get a did-you-mean. `source` names it in results.
DevicePluginSettings read_device_plugin_config(const YamlReader& yaml, const YAML::Node& node,
                                               std::string_view path, std::string source);

}  // namespace slicelab
