// The baseline scorers of the FGD paper's simulator, each as its source computes it (integer
// results, in milli-GPUs): dot-product (Tetris-style alignment), GPU packing and GPU clustering.
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

// dot_product_score.go with merged GPU dimension and max normalisation: node vector (free CPU,
// the node's total free GPU) and pod vector (CPU, total GPU request), both over the largest node
// (128 CPUs and 8 GPUs on openb); ⌊100 × (1 − dot / 2)⌋, so the smaller product wins.
class DotProductScorer final : public Scorer {
 public:
  std::string_view name() const override { return "dot-product"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
};

// gpu_packing_score.go, tiers best first: only partly used GPUs needed: max(100 − ⌊Σ free % of
// the GPUs taken⌋ / 10, 50); free GPUs of a used node needed: max(50 − free GPUs taken, 33); an
// idle node: max(33 − its GPUs, its GPUs). The GPUs taken are the least free that fit, in index
// order on ties. CPU-only pods: 0.
class GpuPackingScorer final : public Scorer {
 public:
  std::string_view name() const override { return "gpu-packing"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
};

// gpu_clustering_score.go: pods are tagged "share-gpu" (a share of one GPU) or by their whole-GPU
// count; ⌊25 × (largest node's GPU − node's free GPU) / largest node's GPU⌋ plus 75 if the node
// runs pods of this tag only, 50 if of this tag among others, 25 if no GPU pod, 0 otherwise.
// CPU-only pods: 0.
class GpuClusteringScorer final : public Scorer {
 public:
  std::string_view name() const override { return "gpu-clustering"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
};

// The clustering tag of a request: 0 for a share of one GPU, the GPU count for whole GPUs, and
// max_gpus_per_node + count for shares of several GPUs (which the paper never schedules).
uint32_t clustering_tag(const PodRequest& req, int capacity_units, int max_gpus_per_node);

}  // namespace slicelab
