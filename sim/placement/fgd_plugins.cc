#include "sim/placement/fgd_plugins.h"

namespace slicelab {

void FgdScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                      std::span<int64_t> out) const {
  model_->node_scores(cycle.cluster, cycle.req, candidates, out);
}

bool FgdDevicePicker::pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const {
  const PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return true;
  if (req.gpu_count == 1 && req.claim_units < cycle.cluster.capacity_units()) {
    const int i = model_->best_gpu(cycle.cluster, req, node);
    if (i < 0) return false;
    out[0] = cycle.cluster.first_gpu(node) + static_cast<GpuId>(i);
    return true;
  }
  return whole_.pick(cycle, node, out);
}

}  // namespace slicelab
