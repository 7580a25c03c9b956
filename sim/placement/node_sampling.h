// kube-scheduler's percentageOfNodesToScore: the filter pass keeps only the first
// numFeasibleNodesToFind feasible nodes, scanning from where the previous pass stopped.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"

namespace slicelab {

// kube-scheduler's numFeasibleNodesToFind (pkg/scheduler/schedule_one.go): all nodes below
// minFeasibleNodesToFind (100); else numAllNodes × percentage / 100 (integer arithmetic), at
// least 100. Percentage 0 is the adaptive default: 50 − numAllNodes/125, at least 5.
// `percentage` in [0, 100].
uint32_t num_feasible_nodes_to_find(int percentage, uint32_t num_all_nodes);

// The sampling of one policy's run: holds nextStartNodeIndex. Inactive (percentage 100, the
// default) it is never asked; placement then scores every feasible node, as the FGD paper's
// simulator does.
class NodeSampling {
 public:
  static constexpr int kOff = 100;
  explicit NodeSampling(int percentage = kOff) : percentage_(percentage) {}

  // True when a percentage below 100 (or 0, adaptive) was set: the filter pass must then run
  // node by node over every pre-filtered node (no index may skip nodes), and sample() narrows it.
  bool active() const { return percentage_ != kOff; }
  int percentage() const { return percentage_; }

  // findNodesThatPassFilters with its parallel checks made sequential: `scanned` are the nodes
  // it is given (its numAllNodes: all nodes, or a PreFilterResult's), `feasible` those of them
  // that pass every filter, in the same order. Keeps in `feasible` the first numFeasibleNodesToFind
  // feasible nodes (1 when the policy has no scorer, as hasScoring) met scanning `scanned`
  // cyclically from nextStartNodeIndex, in scan order. The scan stops at the next feasible node
  // (the one that cancels it, not counted); nextStartNodeIndex advances by the nodes processed
  // (kept + rejected), modulo the cluster's node count (len(allNodes)), as findNodesThatFitPod.
  void sample(std::span<const NodeId> scanned, std::vector<NodeId>& feasible, size_t node_count,
              bool has_scoring);

  size_t next_start() const { return next_start_; }

 private:
  int percentage_;
  size_t next_start_ = 0;
  std::vector<uint8_t> mark_;  // scratch: 1 for the feasible nodes of the current pass
  std::vector<NodeId> kept_;
};

}  // namespace slicelab
