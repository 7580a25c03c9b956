// workload.snapshot: the running pods of a cluster snapshot and the nodes they run on, read
// from the file `slicelab import kubernetes` writes (docs/kubernetes-import.md#snapshot).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "sim/placement/node_name_filter.h"
#include "workloads/pod_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// The file's `snapshot:` list of {pod, node}: every pod a workload pod arriving at 0, every node
// a node of the cluster (by node_names, or "<group>-<i>"), no pod twice. The pinned pods of one
// node must fit it together (CPU, memory, GPUs, each GPU's memory): a snapshot that
// over-commits a node is refused here, naming the pod that does not fit and its node.
std::vector<PinnedPod> read_snapshot_key(const YamlReader& yaml, const YAML::Node& node,
                                         const std::string& scenario_path,
                                         const ClusterSpec& cluster, const GpuCatalog& catalog,
                                         std::span<const PodSpec> pods);

// The names ClusterState gives the cluster's nodes, in node order.
std::vector<std::string> cluster_node_names(const ClusterSpec& cluster);

// The first pinned pod (its index into `pinned`) that does not fit its node beside the pinned
// pods before it, with a sentence naming pod, node and resource; nullopt when all fit. GPUs
// count in thousandths (a one-GPU pod's gpu_milli, else 1000 per GPU).
struct SnapshotOvercommit {
  size_t entry = 0;
  std::string message;
};
std::optional<SnapshotOvercommit> find_snapshot_overcommit(const ClusterSpec& cluster,
                                                           const GpuCatalog& catalog,
                                                           std::span<const PodSpec> pods,
                                                           std::span<const PinnedPod> pinned);

// The same, from a snapshot file on its own (tests, the importer's round trip).
std::vector<PinnedPod> read_snapshot_file(const std::string& path, const ClusterSpec& cluster,
                                          const GpuCatalog& catalog, std::span<const PodSpec> pods);

}  // namespace slicelab
