// FGD (fragmentation gradient descent): the score of placing a pod on a node is how little it
// increases the node's fragmentation; shared by the fgd scorer and the fgd device picker.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>

#include "sim/cluster_state.h"
#include "sim/metrics/fragmentation.h"

namespace slicelab {

class FgdModel {
 public:
  explicit FgdModel(TargetWorkload target) : target_(std::move(target)) {}

  struct Choice {
    double score = 0;         // 100 * sigmoid((F_before - F_after) / 1000), F in milli-GPUs
    int gpu_free_units = -1;  // fractional pods: take a GPU with this much free; else -1
  };
  // The best placement of `req` on `node` (which must fit it). Memoised by the node's state
  // (model, free CPU, sorted free GPU units) and the pod's shape: the fill experiment asks the
  // same question of hundreds of identical nodes for every pod.
  Choice evaluate(const ClusterState& cluster, const PodRequest& req, NodeId node) const;

  const TargetWorkload& target() const { return target_; }

 private:
  struct Key {
    std::array<uint64_t, 4> w;
    bool operator==(const Key& o) const { return w == o.w; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  Choice compute(const ClusterState& cluster, const PodRequest& req, NodeId node) const;

  TargetWorkload target_;
  mutable std::unordered_map<Key, Choice, KeyHash> memo_;
};

}  // namespace slicelab
