// The cluster's free resources during a run: one 64-byte record per node with everything a
// filter, a bind or an index reads of it, and contiguous per-GPU arrays, without pointer chasing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "sim/prefetch.h"

namespace slicelab {

using NodeId = uint32_t;
using GpuId = uint32_t;

// What a pod claims, pre-computed once per pod in the sharing mode's capacity units.
struct PodRequest {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpu_memory_mib = 0;
  uint64_t model_mask = ~uint64_t{0};  // bit i set: GPU model i allowed
  int gpu_count = 0;
  int gpu_milli = 1000;
  int claim_units = 0;  // capacity units taken on each of its GPUs
  // The pod's GPU shape (GPU count and claim) as a small per-run index, for policies that
  // group like shapes; kNoShapeTag for CPU-only pods or when the run does not track shapes.
  static constexpr uint32_t kNoShapeTag = UINT32_MAX;
  uint32_t shape_tag = kNoShapeTag;

  // Every field: requests that compare equal are filtered, scored and placed alike.
  friend bool operator==(const PodRequest&, const PodRequest&) = default;
};

class ClusterState {
 public:
  ClusterState(const ClusterSpec& spec, const GpuCatalog& catalog, int gpu_capacity_units);

  size_t node_count() const { return node_.size(); }
  size_t gpu_count() const { return gpu_free_units_.size(); }
  int capacity_units() const { return cap_units_; }

  // Static facts.
  int64_t cpu_capacity(NodeId n) const { return cpu_cap_[n]; }
  int64_t memory_capacity(NodeId n) const { return mem_cap_[n]; }
  uint16_t model(NodeId n) const { return node_[n].model; }
  // n may be node_count(): then gpu_count(), so that [first_gpu(n), first_gpu(n + 1)) are
  // node n's GPUs for every node.
  GpuId first_gpu(NodeId n) const {
    return n < node_.size() ? node_[n].gpu_begin : static_cast<GpuId>(gpu_free_units_.size());
  }
  int gpus_on(NodeId n) const { return node_[n].gpus; }
  NodeId node_of(GpuId g) const { return gpu_node_[g]; }
  int64_t gpu_memory_capacity(NodeId n) const { return node_[n].gpu_mem_cap; }
  const std::string& node_name(NodeId n) const { return names_[n]; }
  int64_t max_cpu_capacity() const { return max_cpu_; }
  int max_gpus_per_node() const { return max_gpus_; }
  // The node's GPU topology (local GPU i = first_gpu(n) + i), or nullptr when it has none.
  const GpuTopology* topology(NodeId n) const { return topology_[n].get(); }

  // Dynamic state.
  int64_t cpu_free(NodeId n) const { return node_[n].cpu_free; }
  int64_t memory_free(NodeId n) const { return node_[n].mem_free; }
  int gpu_free_units(GpuId g) const { return gpu_free_units_[g]; }
  int64_t gpu_memory_used(GpuId g) const { return gpu_mem_used_[g]; }
  int idle_gpus(NodeId n) const { return node_[n].idle_gpus; }
  int max_free_units(NodeId n) const { return node_[n].max_free_units; }
  int64_t free_units(NodeId n) const { return node_[n].free_units; }
  int64_t allocated_units() const { return allocated_units_; }
  int64_t total_units() const { return static_cast<int64_t>(gpu_count()) * cap_units_; }
  // Changes with every bind and unbind on the node (and only then): a cache keyed by it is
  // valid exactly as long as the node's dynamic state is unchanged.
  uint64_t version(NodeId n) const { return node_[n].version; }

  // The change journal: every bind and unbind appends its node. changes() counts them all; a
  // consumer keeps the count it has seen and asks for what came after. Bounded: only the latest
  // changes (at least one per node) are kept, so a consumer that fell further behind gets
  // nullopt and must rebuild from the per-node state.
  uint64_t changes() const { return journal_base_ + journal_.size(); }
  std::optional<std::span<const NodeId>> changed_since(uint64_t seen) const {
    if (seen < journal_base_ || seen > changes()) return std::nullopt;
    return std::span<const NodeId>(journal_).subspan(static_cast<size_t>(seen - journal_base_));
  }

  // True when node n has `req.gpu_count` GPUs each with `req.claim_units` free units.
  bool gpus_fit(NodeId n, const PodRequest& req) const {
    if (req.gpu_count == 0) return true;
    const Node& node = node_[n];
    if (node.max_free_units < req.claim_units) return false;
    if (req.gpu_count == 1) return true;
    if (req.claim_units == cap_units_) return node.idle_gpus >= req.gpu_count;
    return count_fitting_gpus(n, req.claim_units) >= req.gpu_count;
  }
  // True when the node has room for the pod's CPU, memory and GPUs (not its model).
  bool fits(NodeId n, const PodRequest& req) const {
    return node_[n].cpu_free >= req.cpu_milli && node_[n].mem_free >= req.memory_mib &&
           gpus_fit(n, req);
  }

  // Starts counting, per node, the running pods of each of `tags` GPU shapes.
  void track_shape_tags(size_t tags);
  int shape_tag_count(NodeId n, uint32_t tag) const {
    return tag < tags_ ? tag_counts_[n * tags_ + tag] : 0;
  }
  int distinct_shape_tags(NodeId n) const { return tags_ ? node_[n].distinct_tags : 0; }

  void bind(NodeId n, std::span<const GpuId> gpus, const PodRequest& req);
  void unbind(NodeId n, std::span<const GpuId> gpus, const PodRequest& req);
  // A hint: a bind or an unbind of `gpus` (on node n, not empty) comes soon; fetches what it
  // writes.
  void prefetch_change(NodeId n, std::span<const GpuId> gpus) const {
    prefetch_for_write(&node_[n]);
    if (tags_ != 0) prefetch_for_write(&tag_counts_[n * tags_]);
    prefetch_for_write(&gpu_free_units_[gpus.front()]);
    prefetch_for_write(&gpu_mem_used_[gpus.front()]);
    prefetch_for_write(&gpu_mem_used_[gpus.back()]);
  }

 private:
  int count_fitting_gpus(NodeId n, int claim_units) const;
  void journal(NodeId n);
  void refresh_node_gpu_summary(NodeId n);

  // What a bind, an unbind and the filters read and write of one node, in one cache line: at
  // 10,000 nodes the per-node arrays this replaced cost a cache miss each per event
  // (docs/performance.md, "Fifth round").
  struct alignas(64) Node {
    int64_t cpu_free = 0, mem_free = 0;
    int64_t free_units = 0;  // the sum over its GPUs
    uint64_t version = 0;
    int64_t gpu_mem_cap = 0;  // each GPU's memory (MiB); 0 without GPUs
    GpuId gpu_begin = 0;
    int32_t idle_gpus = 0, max_free_units = 0;
    uint16_t model = 0;
    uint16_t distinct_tags = 0;
    uint16_t gpus = 0;
  };
  static_assert(sizeof(Node) == 64);

  int cap_units_;
  int max_gpus_ = 0;
  int64_t max_cpu_ = 0;
  int64_t allocated_units_ = 0;
  std::vector<Node> node_;
  std::vector<int64_t> cpu_cap_, mem_cap_;
  std::vector<NodeId> gpu_node_;
  std::vector<std::string> names_;
  std::vector<int> gpu_free_units_;
  std::vector<int64_t> gpu_mem_used_;
  std::vector<NodeId> journal_;
  uint64_t journal_base_ = 0;  // changes before journal_[0]
  std::vector<std::shared_ptr<const GpuTopology>> topology_;
  size_t tags_ = 0;
  std::vector<uint16_t> tag_counts_;  // node_count x tags_
};

}  // namespace slicelab
