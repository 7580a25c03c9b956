// NVIDIA's device-plugin config file (k8s-device-plugin api/config/v1) read once, for every
// consumer: the simulator's policies (sim/modes/device_plugin_config) and the node plugin
// (backends/device_plugin/plugin_config). What a consumer cannot do it refuses itself, at the
// place this reader recorded; docs/device-plugin-config.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/yaml_reader.h"

namespace slicelab {

// One entry of sharing.timeSlicing.resources or sharing.mps.resources (ReplicatedResource,
// replicas.go). Each *_at is "file:line:column: path" of that value, for a consumer's refusal.
struct DevicePluginReplicated {
  std::string name;         // qualified as NVIDIA's NewResourceName does ("gpu": nvidia.com/gpu)
  std::string rename;       // qualified; "" when not given (renameByDefault is the consumer's)
  std::string rename_text;  // `rename` as written
  int replicas = 0;         // 2..48
  std::vector<std::string> devices;  // GPU indices, MIG indices or UUIDs; empty: all
  std::string at, name_at, rename_at, devices_at;
};

// The file as NVIDIA's format defines it, checked for everything that depends on the file alone.
struct DevicePluginConfig {
  std::string source;  // the file as its reader names it ("configs/a.yaml data.x", "inline")

  // flags (flags.go)
  std::string mig_strategy = "none";                          // none, single or mixed
  std::string mig_strategy_at;                                // "" when not given
  std::optional<std::string> mps_root;                        // flags.mpsRoot, an absolute folder
  bool pass_device_specs = false;                             // flags.plugin.passDeviceSpecs
  std::vector<std::string> device_list_strategies{"envvar"};  // envvar, volume-mounts, cdi-...
  std::string device_id_strategy = "uuid";                    // uuid or index
  std::optional<std::string> cdi_annotation_prefix;           // ends in '/'
  std::string shared_devices_allocation_policy = "distributed";  // or packed
  // Flags given (strings) or switched on (booleans) that name host paths or features rather than
  // how GPUs are shared ("flags.nvidiaDriverRoot", "flags.plugin.nvidiaCTKPath", ...), in order.
  std::vector<std::string> host_flags;

  // Top-level sections NVIDIA reads but neither consumer uses (imex checked for spelling); ""
  // when absent.
  std::string resources_at, imex_at;
  // `slicelab`: the node plugin's own section (backends/device_plugin/plugin_config.h), handed
  // over unread with the reader that locates its nodes; "" / none when absent.
  struct Section {
    YamlReader reader;
    YAML::Node node;
    std::string path;
  };
  std::string slicelab_at;
  std::optional<Section> slicelab;

  // sharing (sharing.go, replicas.go): at most one of timeSlicing and mps.
  std::string strategy;        // "timeSlicing", "mps", or "" for no sharing section
  std::string strategy_at;     // "file:line:column: sharing.mps" of the section used
  std::string resources_path;  // "sharing.mps.resources" (below the document's own path)
  bool rename_by_default = false;
  // On by default for mps, off for timeSlicing (config.go keeps MPS's historical behaviour).
  bool fail_requests_greater_than_one = false;
  std::vector<DevicePluginReplicated> resources;
};

// A consumer's refusal of a value the reader accepted: "WHERE: WHAT" as an InputError.
[[noreturn]] void refuse_device_plugin_value(std::string_view at, std::string_view what);

// One config document at `node` (path `path` below the file's root: "" for a file, the
// scenario's key for an inline mapping). Unknown keys get a did-you-mean; errors are located.
DevicePluginConfig read_device_plugin_config(const YamlReader& yaml, const YAML::Node& node,
                                             std::string_view path, std::string source);

// Which entry of a ConfigMap to read, when the file is one.
struct DevicePluginConfigEntry {
  std::optional<std::string> name;  // a key of `data`; none: the ConfigMap's only entry
  // Where `name` was written, to refuse it there (a key of the scenario); unused without a name.
  // Initialise it whole: assigning to a YAML::Node writes into the node it holds.
  const YamlReader* named_by = nullptr;
  YAML::Node name_node;
  std::string name_path;
};

// A config file's text: the config itself, or a ConfigMap holding configs as strings under
// `data` (told apart by `kind` or `data`). An error inside a `|` entry names the file's own line
// and column; inside a quoted one, "FILE (data.NAME):line:column" from the entry's start.
// `source` names the file in results (a ConfigMap entry adds " data.NAME").
DevicePluginConfig parse_device_plugin_config_file(const std::string& text, const std::string& file,
                                                   const std::string& source,
                                                   const DevicePluginConfigEntry& entry = {});
// The same, reading `file` (at most kMaxConfigYamlBytes).
DevicePluginConfig read_device_plugin_config_file(const std::string& file,
                                                  const std::string& source,
                                                  const DevicePluginConfigEntry& entry = {});

// A resource name of the config (`sharing.*.resources[].name` and `.rename`, and the node
// plugin's `slicelab.interposer.resource`), as NVIDIA's NewResourceName and the kubelet read it:
// a bare name gets the nvidia.com/ prefix; the result must be at most 63 characters, its part
// after the '/' a DNS-1123 subdomain (NVIDIA's check: "nvidia.com/g pu" and "nvidia.com/GPU"
// fail it), and an extended resource name (the kubelet's check when the plugin registers).
// Returns the qualified name; fails at `node` with the rule it breaks.
std::string read_device_plugin_resource_name(const YamlReader& yaml, const YAML::Node& node,
                                             std::string_view path);

}  // namespace slicelab
