// What a sharing mode's load-time check sees (sim/modes/mode_registry.h, SharingModeEntry::check):
// the scenario document, cluster and workload once every policy has been read, and its policies.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <span>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "sim/sharing/sharing_config.h"
#include "workloads/pod_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

struct ModeLoad {
  const YamlReader& yaml;
  const YAML::Node& root;  // the scenario document
  const ClusterSpec& cluster;
  const GpuCatalog& catalog;
  std::span<const PodSpec> pods;
};

// One policy of the mode: its index in the scenario's `policies` and its sharing, which the
// check may complete (DRA reads its objects there).
struct ModePolicy {
  size_t index = 0;
  SharingConfig* sharing = nullptr;
};

}  // namespace slicelab
