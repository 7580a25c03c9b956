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
  // cache by node version: each node's state is interned once per ClusterState::version (an id
  // shared by nodes in the same state), and each (state id, request shape id) keeps its score,
  // so a node costs two array lookups, not a key built, sorted and hashed per pod.
  // Contract: the cache follows one ClusterState at a time (the one a policy's run schedules
  // on); asked about another (another address or node count), it forgets itself.
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
  // A node's interned state, valid while its version is `version_plus_1` - 1 (0: not yet).
  struct NodeState {
    uint64_t version_plus_1 = 0;
    uint32_t state = 0;
  };
  static constexpr uint32_t kNotInterned = UINT32_MAX;  // nodes of more than 8 GPUs

  struct ShareChoice {
    int64_t score = -1;
    int gpu = -1;  // local index; -1 when no GPU fits
  };
  int64_t compute(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  int64_t memo_score(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  // The pod's shape id; resets the cache when `cluster` is not the one it follows.
  size_t shape_id(const ClusterState& cluster, const PodRequest& req) const;
  uint32_t intern_state(const ClusterState& cluster, NodeId node) const;
  // The memo key of the node's state alone (no request); gpus_on(node) <= kMemoGpus.
  static Key state_key(const ClusterState& cluster, NodeId node);
  int64_t cached_score(const ClusterState& cluster, const PodRequest& req, NodeId node,
                       size_t shape) const;
  // A share of one GPU: the best score over the GPUs that fit and the first GPU that has it.
  ShareChoice best_share(const ClusterState& cluster, const PodRequest& req, NodeId node) const;
  static std::span<int> free_milli(const ClusterState& cluster, NodeId node,
                                   std::array<int, kMaxGpusPerNode>& store);
  // The score of the node's state `milli` (free milli per GPU) after the pod took its part.
  int64_t score_after(double before, int64_t cpu_after, uint16_t model,
                      std::span<const int> milli) const;

  TargetWorkload target_;
  mutable std::unordered_map<Key, int64_t, KeyHash> memo_;
  // The cache by node version (see node_score).
  mutable const ClusterState* cached_cluster_ = nullptr;
  mutable size_t cached_nodes_ = 0;
  mutable std::vector<Shape> shapes_;
  mutable size_t last_shape_ = SIZE_MAX;  // the shape id of the last request: pods come in runs
  mutable std::vector<NodeState> node_states_;
  mutable std::unordered_map<Key, uint32_t, KeyHash> state_ids_;
  mutable std::vector<std::vector<int8_t>> state_scores_;  // [state][shape], -1: not yet
};

}  // namespace slicelab
