#include "sim/placement/filters.h"

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

}  // namespace slicelab
