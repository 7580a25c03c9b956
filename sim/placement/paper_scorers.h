// The baseline scorers of the FGD paper's simulator, each from its published definition:
// dot-product (Tetris-style alignment), GPU packing (tiers) and GPU clustering (same shapes).
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

// Vectors (CPU, GPU) normalised by the largest node: the node's free resources on the GPU(s)
// the pod would use and the pod's request. Higher score for a smaller dot product (the FGD
// simulator's reading of Tetris for packing): 100 * (1 - dot / 2).
class DotProductScorer final : public Scorer {
 public:
  std::string_view name() const override { return "dot-product"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;
};

// Tiers, best first: only partly used GPUs needed (50..100, fuller is better); free GPUs of a
// node already in use (33..50, fewer is better); an idle node (up to 33). CPU-only pods: 0.
class GpuPackingScorer final : public Scorer {
 public:
  std::string_view name() const override { return "gpu-packing"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;
};

// Tiers by the GPU shapes already on the node: only the pod's shape (75..100), the pod's
// shape among others (50..75), none (idle, 25..50), only other shapes (0..25); within a tier,
// the less GPU left the better. CPU-only pods: 0.
class GpuClusteringScorer final : public Scorer {
 public:
  std::string_view name() const override { return "gpu-clustering"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;
};

}  // namespace slicelab
