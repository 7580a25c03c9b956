// Built-in node scorers: binpack (best-fit: least free CPU and GPU left after placement,
// normalised by the largest node), spread (the opposite), and random (seeded, uniform).
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

// Share of the largest node's CPU and GPU capacity that would stay free on `node` after
// placing `req`, averaged over the two resources: 0 = node full, 1 = as free as the largest.
double free_after_placement(const ClusterState& cluster, const PodRequest& req, NodeId node);

class BinpackScorer final : public Scorer {
 public:
  std::string_view name() const override { return "binpack"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;
};

class SpreadScorer final : public Scorer {
 public:
  std::string_view name() const override { return "spread"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;
};

class RandomScorer final : public Scorer {
 public:
  std::string_view name() const override { return "random"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;
};

}  // namespace slicelab
