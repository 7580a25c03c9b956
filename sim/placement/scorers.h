// Built-in node scorers: binpack (best-fit: least CPU and GPU left after placement, normalised
// by the largest node), spread (the opposite), and random (one seeded node gets the top score).
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

// Share of the largest node's CPU and GPU capacity that would stay free on `node` after
// placing `req`, averaged over the two resources: 0 = node full, 1 = as free as the largest.
// Computed in the order of the FGD simulator's best_fit_score.go, so truncation agrees.
double free_after_placement(const ClusterState& cluster, const PodRequest& req, NodeId node);

// kube-scheduler's NormalizeScore as the FGD simulator writes it: min-max over the candidates
// to [0, 100] in integers; all 0 when every candidate has the same score.
void normalize_min_max(std::span<int64_t> scores);

// ⌊100 × (1 − free_after_placement)⌋, then min-max normalised over the candidates.
class BinpackScorer final : public Scorer {
 public:
  std::string_view name() const override { return "binpack"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
  bool normalizes() const override { return true; }
  void normalize_scores(std::span<int64_t> scores) const override { normalize_min_max(scores); }
};

// ⌊100 × free_after_placement⌋, then min-max normalised over the candidates.
class SpreadScorer final : public Scorer {
 public:
  std::string_view name() const override { return "spread"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
  bool normalizes() const override { return true; }
  void normalize_scores(std::span<int64_t> scores) const override { normalize_min_max(scores); }
};

// One candidate, drawn uniformly (seeded), scores 100 and the others 0, as the FGD simulator's
// random_score.go does in its PreScore.
class RandomScorer final : public Scorer {
 public:
  std::string_view name() const override { return "random"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
};

}  // namespace slicelab
