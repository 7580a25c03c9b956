// The static filter cache: per pod shape, which nodes pass the static parts of a policy's filters
// (GPU model, GPU count, per-GPU memory), so that a cycle runs the dynamic checks only on those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

class StaticFilterCache {
 public:
  // At most this many shapes per run; a shape seen after that is not cached (its cycles run the
  // filters whole, as without the cache). A shape costs one bit per node, and nothing when every
  // node passes: at most 64 x 125 KB = 8 MB on a million nodes.
  static constexpr size_t kMaxShapes = 64;

  // Takes the filters whose static parts to cache (not owned; those with StaticPart::kNone are
  // dropped) and forgets every shape. Also forgets them when it sees another cluster.
  void reset(const std::vector<const Filter*>& filters);

  // Narrows `nodes` (ascending; all of the cluster's nodes when it has node_count entries) to
  // those that pass every static part for the pod's shape, keeping their order. Returns false,
  // leaving `nodes` as it was, when the shape is not cached (no static part, or beyond
  // kMaxShapes): the caller must then run the filters whole.
  bool narrow(const ClusterState& cluster, const PodRequest& req, std::vector<NodeId>& nodes);

  size_t cached_shapes() const { return entries_.size(); }

 private:
  struct Entry {
    std::vector<uint64_t> passes;  // one bit per node; empty when every node passes
  };
  struct ShapeHash {
    size_t operator()(const StaticShape& s) const;
  };
  const Entry* find_or_add(const ClusterState& cluster, const StaticShape& shape);

  std::vector<const Filter*> filters_;
  const ClusterState* cluster_ = nullptr;  // the cluster the entries describe
  size_t node_count_ = 0;
  std::unordered_map<StaticShape, uint32_t, ShapeHash> index_;  // shape -> entries_ index
  std::vector<Entry> entries_;
  std::vector<NodeId> scratch_;
};

}  // namespace slicelab
