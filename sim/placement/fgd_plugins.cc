#include "sim/placement/fgd_plugins.h"

namespace slicelab {

void FgdScorer::score(const ClusterState& cluster, const PodRequest& req,
                      std::span<const NodeId> candidates, Rng& /*rng*/,
                      std::span<double> out) const {
  for (size_t i = 0; i < candidates.size(); ++i)
    out[i] = model_->evaluate(cluster, req, candidates[i]).score;
}

bool FgdDevicePicker::pick(const ClusterState& cluster, const PodRequest& req, NodeId node,
                           Rng& /*rng*/, std::span<GpuId> out) const {
  if (req.gpu_count == 0) return true;
  const GpuId first = cluster.first_gpu(node);
  const int gpus = cluster.gpus_on(node);
  const int want = model_->evaluate(cluster, req, node).gpu_free_units;
  int taken = 0;
  for (int i = 0; i < gpus && taken < req.gpu_count; ++i) {
    const GpuId g = first + static_cast<GpuId>(i);
    const int free = cluster.gpu_free_units(g);
    if (free < req.claim_units || (want >= 0 && free != want)) continue;
    out[static_cast<size_t>(taken++)] = g;
  }
  return taken == req.gpu_count;
}

}  // namespace slicelab
