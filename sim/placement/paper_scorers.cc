#include "sim/placement/paper_scorers.h"

#include <algorithm>
#include <array>

namespace slicelab {

void DotProductScorer::score(const ClusterState& cluster, const PodRequest& req,
                             std::span<const NodeId> candidates, Rng& /*rng*/,
                             std::span<double> out) const {
  const double max_cpu = static_cast<double>(std::max<int64_t>(cluster.max_cpu_capacity(), 1));
  const double cap = cluster.capacity_units();
  const double max_gpus = std::max(cluster.max_gpus_per_node(), 1);
  const double pod_cpu = static_cast<double>(req.cpu_milli) / max_cpu;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId n = candidates[i];
    const double node_cpu = static_cast<double>(cluster.cpu_free(n)) / max_cpu;
    double node_gpu = 0, pod_gpu = 0;
    if (req.gpu_count == 0) {
      node_gpu = static_cast<double>(cluster.free_units(n)) / (max_gpus * cap);
    } else if (req.gpu_count == 1 && req.claim_units < cluster.capacity_units()) {
      // The smallest dot over the GPUs that fit is with the fullest of them.
      int fullest = cluster.capacity_units();
      for (GpuId g = cluster.first_gpu(n);
           g < cluster.first_gpu(n) + static_cast<GpuId>(cluster.gpus_on(n)); ++g)
        if (cluster.gpu_free_units(g) >= req.claim_units)
          fullest = std::min(fullest, cluster.gpu_free_units(g));
      node_gpu = fullest / cap;
      pod_gpu = req.claim_units / cap;
    } else {
      node_gpu = cluster.idle_gpus(n) / max_gpus;
      pod_gpu = req.gpu_count / max_gpus;
    }
    out[i] = 100.0 * (1.0 - (node_cpu * pod_cpu + node_gpu * pod_gpu) / 2.0);
  }
}

void GpuPackingScorer::score(const ClusterState& cluster, const PodRequest& req,
                             std::span<const NodeId> candidates, Rng& /*rng*/,
                             std::span<double> out) const {
  const int cap = cluster.capacity_units();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId n = candidates[i];
    if (req.gpu_count == 0) {
      out[i] = 0;
      continue;
    }
    const int gpus = cluster.gpus_on(n);
    const int idle = cluster.idle_gpus(n);
    if (idle == gpus) {
      out[i] = std::max(100 / 3 - idle, idle);
      continue;
    }
    // The GPUs the pod would take: the fullest that fit, as the binpack picker takes them.
    std::array<int, 64> free{};
    const GpuId first = cluster.first_gpu(n);
    int k = 0;
    for (int g = 0; g < gpus && g < 64; ++g) {
      const int f = cluster.gpu_free_units(first + static_cast<GpuId>(g));
      if (f >= req.claim_units) free[static_cast<size_t>(k++)] = f;
    }
    std::sort(free.begin(), free.begin() + k);
    int fully_free_used = 0, free_pct = 0;
    for (int j = 0; j < req.gpu_count && j < k; ++j) {
      fully_free_used += free[static_cast<size_t>(j)] == cap ? 1 : 0;
      free_pct += free[static_cast<size_t>(j)] * 100 / cap;
    }
    out[i] = fully_free_used > 0 ? std::max(100 / 2 - fully_free_used, 100 / 3)
                                 : std::max(100 - free_pct / 10, 100 / 2);
  }
}

void GpuClusteringScorer::score(const ClusterState& cluster, const PodRequest& req,
                                std::span<const NodeId> candidates, Rng& /*rng*/,
                                std::span<double> out) const {
  const double max_spec =
      static_cast<double>(std::max(cluster.max_gpus_per_node(), 1)) * cluster.capacity_units();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId n = candidates[i];
    if (req.gpu_count == 0) {
      out[i] = 0;
      continue;
    }
    const double fullness =
        25.0 * (max_spec - static_cast<double>(cluster.free_units(n))) / max_spec;
    const int distinct = cluster.distinct_shape_tags(n);
    double tier = 0;
    if (cluster.shape_tag_count(n, req.shape_tag) > 0) {
      tier = distinct == 1 ? 75 : 50;
    } else {
      tier = distinct == 0 ? 25 : 0;
    }
    out[i] = tier + fullness;
  }
}

}  // namespace slicelab
