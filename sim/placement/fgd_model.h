// FGD (fragmentation gradient descent): the score of placing a pod on a node is how little it
// increases the node's fragmentation; shared by the fgd scorer and the fgd device picker.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>

#include "sim/cluster_state.h"
#include "sim/metrics/fragmentation.h"
#include "workloads/input_limits.h"

namespace slicelab {

class FgdModel {
 public:
  explicit FgdModel(TargetWorkload target) : target_(std::move(target)) {}

  // ⌊100 × sigmoid((F_before − F_after) / 1000)⌋ (F in milli-GPUs), as fgd_score.go. A share of
  // one GPU is scored for each GPU that fits and the node gets the best; whole GPUs are taken
  // least free first (only idle ones fit, so the lowest-index idle ones). Memoised by the node's
  // state (model, free CPU, sorted free GPU units) and the pod's shape: the fill experiment asks
  // the same question of hundreds of identical nodes for every pod.
  int64_t node_score(const ClusterState& cluster, const PodRequest& req, NodeId node) const;

  // For a share of one GPU: the GPU of `node` that fgd_score.go gives it, the first in index order
  // among those with the best score. -1 when none fits.
  int best_gpu(const ClusterState& cluster, const PodRequest& req, NodeId node) const;

  const TargetWorkload& target() const { return target_; }

 private:
  struct Key {
    std::array<uint64_t, 4> w;
    bool operator==(const Key& o) const { return w == o.w; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct ShareChoice {
    int64_t score = -1;
    int gpu = -1;  // local index; -1 when no GPU fits
  };
  int64_t compute(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  // A share of one GPU: the best score over the GPUs that fit and the first GPU that has it.
  ShareChoice best_share(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  static std::span<int> free_milli(const ClusterState& cluster, NodeId node,
                                   std::array<int, kMaxGpusPerNode>& store);
  // The score of the node's state `milli` (free milli per GPU) after the pod took its part.
  int64_t score_after(double before, int64_t cpu_after, uint16_t model,
                      std::span<const int> milli) const;

  TargetWorkload target_;
  mutable std::unordered_map<Key, int64_t, KeyHash> memo_;
};

}  // namespace slicelab
