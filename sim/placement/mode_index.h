// An index a sharing mode keeps for one of its named scorers, so that a policy scoring by it
// need not filter and score every node: the mode's filters, its scorer and its bookkeeping meet.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

// What the policy's own filters need of a node at least: necessary conditions an index may prune
// by (FreeCapacityIndex::kNoMinimum, or any value at or below the smallest possible: none).
struct PolicyNeed {
  int64_t cpu = 0;
  int64_t memory = 0;
  int64_t gpu_units = 0;  // on one GPU: ClusterState::max_free_units
  int64_t idle_gpus = 0;  // ClusterState::idle_gpus
};

// Nodes tied at the top as one set (a mode's idle class, whose members pass and score alike): bit
// n % 64 of word n / 64 is set for each member; `count` of them, `lowest` the lowest id.
struct TiedSet {
  std::span<const uint64_t> bits;
  size_t count = 0;
  NodeId lowest = 0;
};

// Contract: top_nodes() lists exactly the nodes that pass every one of the run's filters (those
// applies() accepted) and `passes` (the policy's own filters), whose score by the scorer it was
// named for is the highest among them: the full pass's maxima, in any order, some of them as
// sets (disjoint from `ties` and from each other). It draws nothing
// from the cycle's random source; the policy's tie rule picks among them.
class ModeIndex {
 public:
  virtual ~ModeIndex() = default;
  // Whether these run filters are all the mode's own, which top_nodes() applies itself.
  virtual bool applies(std::span<Filter* const> run_filters) const = 0;
  virtual void top_nodes(const SchedulingCycle& cycle, const PolicyNeed& need,
                         const std::function<bool(NodeId)>& passes, std::vector<NodeId>& ties,
                         std::vector<TiedSet>& sets) const = 0;
};

}  // namespace slicelab
