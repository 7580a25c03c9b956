// The feasible-count tree: how many nodes pass the default filters for a pod, and the k-th of them
// in node order, without testing every node; kept in step with ClusterState through its journal.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/journal_follower.h"

namespace slicelab {

// Contract: an index, not a decision. For pods whose GPU test is "enough idle GPUs" (whole GPUs,
// or none), count() and kth() answer exactly what testing every node with `exact` (the filters'
// own test, which they call on the nodes they cannot settle by counts) would: the number of
// nodes that pass, and the k-th of them in node order. A subtree is settled by counts only when
// every node in it has the pod's CPU and memory free and (model filter on) a GPU model, GPU
// memory and GPU count the pod allows; then the nodes that pass are those with at least the
// pod's GPU count idle, which each subtree counts per idle-GPU count.
class FeasibleCountTree {
 public:
  struct Query {
    int64_t cpu = 0, memory = 0;  // minimum free CPU and memory (resources filter)
    int idle_gpus = 0;            // minimum idle GPUs (gpu-capacity filter, whole GPUs); 0: none
    bool model = false;           // the gpu-model filter applies: the three below
    uint64_t model_mask = ~uint64_t{0};
    int64_t gpu_memory_mib = 0;
    int gpu_count = 0;
    // Which of the nodes that pass count: all of them (every), else those with a GPU in use
    // (busy) and the GPU-idle ones (all their GPUs idle) whose GPU count G has bit G - 1 set
    // in idle_sizes.
    bool every = true;
    bool busy = false;
    uint64_t idle_sizes = 0;
  };

  // Forgets the cluster: the next sync() rebuilds.
  void reset() { follower_.reset(); }
  void sync(const ClusterState& cluster);

  template <typename Exact>
  uint32_t count(const Query& q, Exact& exact) const {
    return count_from(1, q, exact);
  }
  // The k-th (from 0) node in node order that passes; k < count(q, exact).
  template <typename Exact>
  NodeId kth(const Query& q, uint32_t k, Exact& exact) const {
    size_t v = 1;
    while (v < leaves_) {
      const uint32_t left = count_from(2 * v, q, exact);
      if (k < left) {
        v = 2 * v;
      } else {
        k -= left;
        v = 2 * v + 1;
      }
    }
    return static_cast<NodeId>(v - leaves_);
  }

  // The GPU counts nodes have (bit G - 1 for G GPUs, G >= 1).
  uint64_t gpu_sizes() const { return gpu_sizes_; }

 private:
  void rebuild(const ClusterState& cluster);
  void set_leaf(const ClusterState& cluster, NodeId n);
  void pull(size_t v);
  // Nodes of subtree v with at least g idle GPUs (g = 0: all its nodes); of them, GPU-idle.
  uint32_t at_least(size_t v, int g) const {
    return g > max_gpus_ ? 0 : idle_at_least_[v * stride_ + static_cast<size_t>(g)];
  }
  uint32_t gpu_idle_at_least(size_t v, int g) const {
    return g > max_gpus_ ? 0 : gpu_idle_at_least_[v * stride_ + static_cast<size_t>(g)];
  }
  // Of the nodes of a settled subtree v, those the query counts.
  uint32_t settled_count(size_t v, const Query& q) const {
    const int g = q.idle_gpus;
    if (q.every) return at_least(v, g);
    uint32_t n = q.busy ? at_least(v, g) - gpu_idle_at_least(v, g) : 0;
    // A GPU-idle node of G GPUs has G idle: it passes when G >= g.
    for (uint64_t sizes = q.idle_sizes; sizes != 0; sizes &= sizes - 1) {
      const int size = std::countr_zero(sizes) + 1;
      if (size >= g) n += gpu_idle_at_least(v, size) - gpu_idle_at_least(v, size + 1);
    }
    return n;
  }
  // Whether leaf v's node is one the query counts (the filters aside).
  bool counted_leaf(size_t v, const Query& q) const {
    if (q.every) return true;
    const int gpus = gpus_min_[v];
    if (idle_max_[v] != gpus) return q.busy;
    return gpus >= 1 && gpus <= 64 && ((q.idle_sizes >> (gpus - 1)) & 1U) != 0;
  }
  bool settled(size_t v, const Query& q) const {
    return cpu_min_[v] >= q.cpu && mem_min_[v] >= q.memory &&
           (!q.model || ((models_[v] & ~q.model_mask) == 0 && gpu_mem_min_[v] >= q.gpu_memory_mib &&
                         gpus_min_[v] >= q.gpu_count));
  }
  template <typename Exact>
  uint32_t count_from(size_t v, const Query& q, Exact& exact) const {
    if (cpu_max_[v] < q.cpu || mem_max_[v] < q.memory || idle_max_[v] < q.idle_gpus) return 0;
    if (settled(v, q)) return settled_count(v, q);
    if (v >= leaves_) return counted_leaf(v, q) && exact(static_cast<NodeId>(v - leaves_)) ? 1 : 0;
    return count_from(2 * v, q, exact) + count_from(2 * v + 1, q, exact);
  }

  JournalFollower follower_;
  size_t nodes_ = 0;
  int max_gpus_ = 0;
  size_t stride_ = 1;  // max_gpus_ + 1 counts per tree node
  // A complete binary tree over node order: leaves_ leaves (a power of two), node v's children
  // 2v and 2v+1. Leaves past the last node count no node and settle every query.
  size_t leaves_ = 1;
  std::vector<int64_t> cpu_min_, cpu_max_, mem_min_, mem_max_;
  std::vector<int> idle_max_;
  std::vector<uint32_t> idle_at_least_;      // [v * stride_ + g]
  std::vector<uint32_t> gpu_idle_at_least_;  // the same, GPU-idle nodes only
  uint64_t gpu_sizes_ = 0;
  // Static per subtree (capacities): the GPU models present (one bit each), the least GPU
  // memory and GPU count.
  std::vector<uint64_t> models_;
  std::vector<int64_t> gpu_mem_min_;
  std::vector<int> gpus_min_;
};

}  // namespace slicelab
