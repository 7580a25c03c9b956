// nvidia-mig-parted's configuration format (`version: v1`, `mig-configs: <name>: [ {device-filter,
// devices, mig-enabled, mig-devices} ]`), read from its own file or inline in a scenario.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/yaml_reader.h"

namespace slicelab {

// One entry of a named configuration: which GPUs of a node it applies to and their layout.
struct MigDeviceRule {
  std::vector<int> devices;  // GPU indexes within the node; empty = all
  // device-filter: the PCI device IDs as written (empty: every GPU model) and the catalog models
  // they name (workloads/hardware/pci_device_ids.h); IDs of unmodelled GPUs name none.
  std::vector<std::string> device_filter;
  std::vector<std::string> filter_models;
  bool mig_enabled = true;
  std::vector<std::pair<std::string, int>> mig_devices;  // profile name -> count, file order
  std::string where;  // "file:line:col: path" of the entry, for errors found later

  bool applies_to(int gpu) const;  // by index alone: `devices`
  // By index and model: `devices` and `device-filter`, as mig-parted walks a node's GPUs.
  bool applies_to(int gpu, std::string_view model) const;
};

struct MigPartedConfig {
  std::map<std::string, std::vector<MigDeviceRule>> configs;  // by configuration name
  std::string names() const;  // "all-1g, balanced" for error messages
};

// `node` is the document's root (or a scenario's inline mapping): `version` (v1, optional when
// inline) and `mig-configs`. Shape errors are located InputErrors.
MigPartedConfig read_mig_parted(const YamlReader& yaml, const YAML::Node& node,
                                std::string_view path);
MigPartedConfig load_mig_parted_file(const std::string& file);

}  // namespace slicelab
