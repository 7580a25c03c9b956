#include "sim/placement/recorded_gpu_picker.h"

#include <algorithm>

#include "sim/cluster_state.h"

namespace slicelab {

RecordedGpuPicker::RecordedGpuPicker(std::span<const RecordedGpus> recorded, size_t pod_count)
    : gpus_of_(pod_count) {
  for (const RecordedGpus& r : recorded)
    if (r.pod < pod_count) gpus_of_[r.pod] = r.gpus;
}

bool RecordedGpuPicker::pick(const SchedulingCycle& cycle, NodeId node,
                             std::span<GpuId> out) const {
  const PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return true;
  if (cycle.pod < gpus_of_.size()) {
    const std::vector<int>& want = gpus_of_[cycle.pod];
    const ClusterState& cluster = cycle.cluster;
    const int count = cluster.gpus_on(node);
    const auto fits = [&](int i) {
      return i >= 0 && i < count &&
             cluster.gpu_free_units(cluster.first_gpu(node) + static_cast<GpuId>(i)) >=
                 req.claim_units;
    };
    if (want.size() == static_cast<size_t>(req.gpu_count) && out.size() >= want.size() &&
        std::all_of(want.begin(), want.end(), fits)) {
      for (size_t k = 0; k < want.size(); ++k)
        out[k] = cluster.first_gpu(node) + static_cast<GpuId>(want[k]);
      return true;
    }
  }
  return fallback_.pick(cycle, node, out);
}

}  // namespace slicelab
