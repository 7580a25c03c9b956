// FGD (fragmentation gradient descent): the score of placing a pod on a node is how little it
// increases the node's fragmentation; shared by the fgd scorer and the fgd device picker.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

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
  // the same question of hundreds of identical nodes for every pod. In front of that memo, a
  // per-node cache keyed by (ClusterState::version(node), the pod's shape): a node unchanged
  // since it was last scored for this shape costs one lookup, not a key built and hashed.
  // Contract: the per-node cache follows one ClusterState at a time (the one a policy's run
  // schedules on); asked about another (another address or node count), it forgets itself.
  int64_t node_score(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  // node_score for each of `nodes` into `out` (aligned): the pod's shape is looked up once.
  void node_scores(const ClusterState& cluster, const PodRequest& req,
                   std::span<const NodeId> nodes, std::span<int64_t> out) const;

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
  // What node_score depends on besides the node and the model's target: the pod's CPU, GPU count
  // and claim, and whether it requests nothing at all (then memory matters too).
  struct Shape {
    int64_t cpu_milli = 0;
    int gpu_count = 0;
    int claim_units = 0;
    bool empty = false;
    bool operator==(const Shape&) const = default;
    static Shape of(const PodRequest& req);
  };
  static constexpr int32_t kUnknownGpu = -2;
  // One node's cached answer for one shape: valid while the node's version is `version`.
  struct Slot {
    uint64_t version_plus_1 = 0;  // 0: empty
    int32_t score = 0;
    int32_t gpu = kUnknownGpu;  // best_share's GPU, or kUnknownGpu when only the score is known
  };
  // Cached slots across all shapes at most (16 bytes each: 64 MiB); shapes beyond it go to the
  // state-keyed memo alone.
  static constexpr size_t kMaxSlots = size_t{1} << 22;

  struct ShareChoice {
    int64_t score = -1;
    int gpu = -1;  // local index; -1 when no GPU fits
  };
  int64_t compute(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  int64_t memo_score(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  // The slots of the pod's shape, one per node (empty when over kMaxSlots); resets the cache when
  // `cluster` is not the one it follows.
  std::span<Slot> slots_for(const ClusterState& cluster, const PodRequest& req) const;
  int64_t cached_score(const ClusterState& cluster, const PodRequest& req, NodeId node,
                       std::span<Slot> slots) const;
  // A share of one GPU: the best score over the GPUs that fit and the first GPU that has it.
  ShareChoice best_share(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  static std::span<int> free_milli(const ClusterState& cluster, NodeId node,
                                   std::array<int, kMaxGpusPerNode>& store);
  // The score of the node's state `milli` (free milli per GPU) after the pod took its part.
  int64_t score_after(double before, int64_t cpu_after, uint16_t model,
                      std::span<const int> milli) const;

  TargetWorkload target_;
  mutable std::unordered_map<Key, int64_t, KeyHash> memo_;
  // The per-node cache: one column of node_count slots per shape id (shapes_[id]).
  mutable const ClusterState* cached_cluster_ = nullptr;
  mutable size_t cached_nodes_ = 0;
  mutable std::vector<Shape> shapes_;
  mutable std::vector<std::vector<Slot>> columns_;
  mutable size_t slots_used_ = 0;
  mutable size_t last_shape_ = SIZE_MAX;  // the shape id of the last request: pods come in runs
};

}  // namespace slicelab
