#include "sim/placement/filters.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab {
namespace {

template <typename Pred>
void keep_if(std::vector<NodeId>& candidates, Pred pred) {
  size_t w = 0;
  for (const NodeId n : candidates) {
    candidates[w] = n;
    w += pred(n) ? 1 : 0;
  }
  candidates.resize(w);
}

}  // namespace

void ResourceFilter::filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  keep_if(candidates, [&](NodeId n) {
    return cluster.cpu_free(n) >= req.cpu_milli && cluster.memory_free(n) >= req.memory_mib;
  });
}

void GpuModelFilter::filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const {
  static_filter(cycle.cluster, StaticShape::of(cycle.req), candidates);
}

void GpuModelFilter::static_filter(const ClusterState& cluster, const StaticShape& shape,
                                   std::vector<NodeId>& candidates) const {
  if (shape.gpu_count == 0) return;
  keep_if(candidates, [&](NodeId n) {
    return ((shape.model_mask >> cluster.model(n)) & 1U) != 0 &&
           cluster.gpu_memory_capacity(n) >= shape.gpu_memory_mib &&
           cluster.gpus_on(n) >= shape.gpu_count;
  });
}

void GpuCapacityFilter::filter(const SchedulingCycle& cycle,
                               std::vector<NodeId>& candidates) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return;
  keep_if(candidates, [&](NodeId n) { return cluster.gpus_fit(n, req); });
}

Rejection ResourceFilter::why_rejected(const SchedulingCycle& cycle, NodeId node) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  const bool cpu = cluster.cpu_free(node) < req.cpu_milli;
  const bool memory = cluster.memory_free(node) < req.memory_mib;
  const std::string cpu_text =
      fmt::format("CPU {}m free, {}m asked", cluster.cpu_free(node), req.cpu_milli);
  const std::string memory_text =
      fmt::format("memory {} MiB free, {} MiB asked", cluster.memory_free(node), req.memory_mib);
  if (cpu && memory) return {"not enough free CPU and memory", cpu_text + "; " + memory_text};
  if (cpu) return {"not enough free CPU", cpu_text};
  return {"not enough free memory", memory_text};
}

Rejection GpuModelFilter::why_rejected(const SchedulingCycle& cycle, NodeId node) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  if (((req.model_mask >> cluster.model(node)) & 1U) == 0)
    return {"GPU model not allowed for the pod", {}};
  if (cluster.gpu_memory_capacity(node) < req.gpu_memory_mib)
    return {"GPU memory smaller than the pod's",
            fmt::format("{} MiB per GPU, {} MiB asked", cluster.gpu_memory_capacity(node),
                        req.gpu_memory_mib)};
  return {"fewer GPUs on the node than the pod asks",
          fmt::format("{} GPUs, {} asked", cluster.gpus_on(node), req.gpu_count)};
}

Rejection GpuCapacityFilter::why_rejected(const SchedulingCycle& cycle, NodeId node) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  int fitting = 0;
  for (GpuId g = cluster.first_gpu(node); g < cluster.first_gpu(node + 1); ++g)
    fitting += cluster.gpu_free_units(g) >= req.claim_units ? 1 : 0;
  const bool whole = req.claim_units == cluster.capacity_units();
  return {whole ? "too few idle GPUs" : "too few GPUs with room for the pod's share",
          fmt::format("{} of {} GPUs have {}/{} free, {} needed", fitting, cluster.gpus_on(node),
                      req.claim_units, cluster.capacity_units(), req.gpu_count)};
}

}  // namespace slicelab
