// The cluster as a scenario describes it: groups of identical nodes, each with one GPU model.
// Static description only; ClusterState holds what changes during a run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace slicelab {

class GpuTopology;  // sim/topology/gpu_topology.h; kept out of this header's includes

struct NodeGroup {
  std::string name;
  int count = 1;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  size_t gpu_model = 0;  // index into the scenario's GpuCatalog
  int gpus_per_node = 0;
  // How the GPUs of each node connect (NVLink, PCIe); null when the scenario gives none.
  std::shared_ptr<const GpuTopology> topology;
  // The nodes' own names (a Kubernetes import's), `count` of them; empty: "<name>-<i>".
  std::vector<std::string> node_names;
};

struct ClusterSpec {
  std::vector<NodeGroup> groups;

  size_t node_count() const {
    size_t n = 0;
    for (const auto& g : groups) n += static_cast<size_t>(g.count);
    return n;
  }
  size_t gpu_count() const {
    size_t n = 0;
    for (const auto& g : groups)
      n += static_cast<size_t>(g.count) * static_cast<size_t>(g.gpus_per_node);
    return n;
  }
};

}  // namespace slicelab
