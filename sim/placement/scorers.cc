#include "sim/placement/scorers.h"

#include <algorithm>
#include <array>

namespace slicelab {

namespace {

// free_after_placement with the cluster's divisors and the pod's claims read once per list: the
// same operations in the same order, so the same doubles (and scores), without a call, two
// conversions and reloads of the request (out[] may alias it) per node.
class FreeAfterPlacement {
 public:
  FreeAfterPlacement(const ClusterState& cluster, const PodRequest& req)
      : cluster_(cluster),
        max_cpu_(static_cast<double>(cluster.max_cpu_capacity())),
        max_gpu_(static_cast<double>(cluster.max_gpus_per_node()) * cluster.capacity_units()),
        cpu_(req.cpu_milli),
        units_(static_cast<int64_t>(req.gpu_count) * req.claim_units) {}

  double operator()(NodeId node) const {
    double s = 0;
    if (max_cpu_ > 0) s += static_cast<double>(cluster_.cpu_free(node) - cpu_) / max_cpu_ * 0.5;
    if (max_gpu_ > 0) s += static_cast<double>(cluster_.free_units(node) - units_) / max_gpu_ * 0.5;
    return s;
  }

 private:
  const ClusterState& cluster_;
  double max_cpu_, max_gpu_;
  int64_t cpu_, units_;
};

}  // namespace

double free_after_placement(const ClusterState& cluster, const PodRequest& req, NodeId node) {
  return FreeAfterPlacement(cluster, req)(node);
}

void normalize_min_max(std::span<int64_t> scores) {
  if (scores.empty()) return;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const int64_t lowest = *lo;
  const int64_t range = *hi - lowest;
  constexpr int64_t kSpan = kMaxNodeScore - kMinNodeScore;
  if (range == 0) {
    std::fill(scores.begin(), scores.end(), kMinNodeScore);
    return;
  }
  if (range <= kSpan) {
    // Scores within 0..100 take at most 101 values: one division per value, not per node
    // (this runs for every candidate of every attempt).
    std::array<int64_t, kSpan + 1> table{};
    for (int64_t v = 0; v <= range; ++v) table[static_cast<size_t>(v)] = v * kSpan / range;
    for (int64_t& s : scores) s = table[static_cast<size_t>(s - lowest)] + kMinNodeScore;
    return;
  }
  for (int64_t& s : scores) s = (s - lowest) * kSpan / range + kMinNodeScore;
}

void BinpackScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                          std::span<int64_t> out) const {
  const FreeAfterPlacement free_after(cycle.cluster, cycle.req);
  for (size_t i = 0; i < candidates.size(); ++i)
    out[i] = static_cast<int64_t>((1.0 - free_after(candidates[i])) * 100.0);
}

void SpreadScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                         std::span<int64_t> out) const {
  const FreeAfterPlacement free_after(cycle.cluster, cycle.req);
  for (size_t i = 0; i < candidates.size(); ++i)
    out[i] = static_cast<int64_t>(free_after(candidates[i]) * 100.0);
}

void RandomScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                         std::span<int64_t> out) const {
  std::fill(out.begin(), out.end(), kMinNodeScore);
  if (!candidates.empty()) out[cycle.rng.below(candidates.size())] = kMaxNodeScore;
}

}  // namespace slicelab
