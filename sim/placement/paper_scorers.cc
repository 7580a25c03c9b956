#include "sim/placement/paper_scorers.h"

#include <algorithm>
#include <array>
#include <utility>

#include "workloads/input_limits.h"

namespace slicelab {

uint32_t clustering_tag(const PodRequest& req, int capacity_units, int max_gpus_per_node) {
  if (req.gpu_count == 0) return PodRequest::kNoShapeTag;
  if (req.claim_units >= capacity_units) return static_cast<uint32_t>(req.gpu_count);
  if (req.gpu_count == 1) return 0;
  return static_cast<uint32_t>(max_gpus_per_node + req.gpu_count);
}

void DotProductScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                             std::span<int64_t> out) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  const double max_cpu = static_cast<double>(std::max<int64_t>(cluster.max_cpu_capacity(), 1));
  const double max_gpu = static_cast<double>(std::max(cluster.max_gpus_per_node(), 1)) *
                         static_cast<double>(cluster.capacity_units());
  const double pod_cpu = static_cast<double>(req.cpu_milli) / max_cpu;
  const double pod_gpu =
      static_cast<double>(static_cast<int64_t>(req.gpu_count) * req.claim_units) / max_gpu;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId n = candidates[i];
    double dot = static_cast<double>(cluster.cpu_free(n)) / max_cpu * pod_cpu;
    dot += static_cast<double>(cluster.free_units(n)) / max_gpu * pod_gpu;
    const double s = 1.0 - dot / 2.0;
    out[i] = static_cast<int64_t>(static_cast<double>(kMaxNodeScore) * s);
  }
}

void GpuPackingScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                             std::span<int64_t> out) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  const int cap = cluster.capacity_units();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId n = candidates[i];
    if (req.gpu_count == 0) {
      out[i] = kMinNodeScore;
      continue;
    }
    const int gpus = cluster.gpus_on(n);
    const int idle = cluster.idle_gpus(n);
    if (idle == gpus) {
      out[i] = std::max<int64_t>(kMaxNodeScore / 3 - idle, idle);
      continue;
    }
    // The GPUs the pod would take: the least free that fit, equal ones in index order.
    std::array<std::pair<int, int>, kMaxGpusPerNode> fit{};
    const GpuId first = cluster.first_gpu(n);
    size_t k = 0;
    for (int g = 0; g < gpus && g < kMaxGpusPerNode; ++g) {
      const int f = cluster.gpu_free_units(first + static_cast<GpuId>(g));
      if (f >= req.claim_units) fit[k++] = {f, g};
    }
    const size_t take = std::min(k, static_cast<size_t>(req.gpu_count));
    std::partial_sort(fit.begin(), fit.begin() + static_cast<std::ptrdiff_t>(take),
                      fit.begin() + static_cast<std::ptrdiff_t>(k));
    int64_t fully_free = 0, free_pct = 0;
    for (size_t j = 0; j < take; ++j) {
      fully_free += fit[j].first == cap ? 1 : 0;
      // Percent of each GPU, truncated per GPU from its milli as the source does.
      const int64_t milli = static_cast<int64_t>(fit[j].first) * 1000 / cap;
      free_pct += milli * 100 / 1000;
    }
    out[i] = fully_free > 0 ? std::max<int64_t>(kMaxNodeScore / 2 - fully_free, kMaxNodeScore / 3)
                            : std::max<int64_t>(kMaxNodeScore - free_pct / 10, kMaxNodeScore / 2);
  }
}

void GpuClusteringScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                                std::span<int64_t> out) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  const int64_t max_spec =
      static_cast<int64_t>(std::max(cluster.max_gpus_per_node(), 1)) * cluster.capacity_units();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId n = candidates[i];
    if (req.gpu_count == 0) {
      out[i] = kMinNodeScore;
      continue;
    }
    const int64_t fullness = kMaxNodeScore / 4 * (max_spec - cluster.free_units(n)) / max_spec;
    const int distinct = cluster.distinct_shape_tags(n);
    int64_t tier = 0;
    if (cluster.shape_tag_count(n, req.shape_tag) > 0) {
      tier = distinct == 1 ? kMaxNodeScore * 3 / 4 : kMaxNodeScore * 2 / 4;
    } else {
      tier = distinct == 0 ? kMaxNodeScore / 4 : 0;
    }
    out[i] = fullness + tier;
  }
}

}  // namespace slicelab
