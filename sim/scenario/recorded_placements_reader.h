// workload.placements: where the cluster placed each pod of a history import, read from the
// file `slicelab import recording` / `import kubernetes --history` writes; the as-recorded policy
// pins each listed pod to its node (docs/record-replay.md#as-recorded).
#pragma once

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/placement/node_name_filter.h"
#include "sim/placement/recorded_gpu_picker.h"
#include "workloads/pod_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// The file's `placements:` list of {pod, node}: every pod a workload pod, every node a node of
// the cluster (by node_names, or "<group>-<i>"), no pod twice. Unlike a snapshot, the pods may
// arrive at any time and need not fit together: they hold their nodes at different times.
// Throws InputError at the entry that breaks a rule.
// An entry's optional `gpus: [i, ...]` (distinct indices below its node's GPU count) go to
// `gpus`.
std::vector<PinnedPod> read_placements_key(const YamlReader& yaml, const YAML::Node& node,
                                           const std::string& scenario_path,
                                           const ClusterSpec& cluster,
                                           std::span<const PodSpec> pods,
                                           std::vector<RecordedGpus>& gpus);

}  // namespace slicelab
