#include "sim/placement/scorers.h"

namespace slicelab {

double free_after_placement(const ClusterState& cluster, const PodRequest& req, NodeId node) {
  const double max_cpu = static_cast<double>(cluster.max_cpu_capacity());
  const double max_gpu =
      static_cast<double>(cluster.max_gpus_per_node()) * cluster.capacity_units();
  const double cpu_term =
      max_cpu > 0 ? static_cast<double>(cluster.cpu_free(node) - req.cpu_milli) / max_cpu : 0.0;
  const double gpu_term =
      max_gpu > 0 ? static_cast<double>(cluster.free_units(node) -
                                        static_cast<int64_t>(req.gpu_count) * req.claim_units) /
                        max_gpu
                  : 0.0;
  return 0.5 * (cpu_term + gpu_term);
}

void BinpackScorer::score(const ClusterState& cluster, const PodRequest& req,
                          std::span<const NodeId> candidates, Rng& /*rng*/,
                          std::span<double> out) const {
  for (size_t i = 0; i < candidates.size(); ++i)
    out[i] = 100.0 * (1.0 - free_after_placement(cluster, req, candidates[i]));
}

void SpreadScorer::score(const ClusterState& cluster, const PodRequest& req,
                         std::span<const NodeId> candidates, Rng& /*rng*/,
                         std::span<double> out) const {
  for (size_t i = 0; i < candidates.size(); ++i)
    out[i] = 100.0 * free_after_placement(cluster, req, candidates[i]);
}

void RandomScorer::score(const ClusterState& /*cluster*/, const PodRequest& /*req*/,
                         std::span<const NodeId> candidates, Rng& rng,
                         std::span<double> out) const {
  for (size_t i = 0; i < candidates.size(); ++i) out[i] = 100.0 * rng.uniform();
}

}  // namespace slicelab
