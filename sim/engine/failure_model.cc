#include "sim/engine/failure_model.h"

#include <fmt/format.h>

namespace slicelab {

bool FailureModel::fails_allocation(const PodRequest& r, PodOutcome& o) const {
  const int most = mode_.max_gpus_per_pod();
  if (most <= 0 || r.gpu_count <= most) return false;
  // The plugin's own words (internal/rm/rm.go, ValidateRequest); the kubelet reports a failed
  // Allocate as UnexpectedAdmissionError.
  o.reason = reasons_.add(fmt::format(
      "UnexpectedAdmissionError: device plugin Allocate failed: maximum request size for shared "
      "resources is {}; found {} (failRequestsGreaterThanOne)",
      most, r.gpu_count));
  o.failure = FailureCause::kAllocationRefused;
  return true;
}

bool FailureModel::fails_own_limit(int64_t peak_mib, const PodRequest& r,
                                   std::span<const GpuId> gpus, PodOutcome& o) {
  if (r.gpu_count == 0) return false;
  for (const GpuId g : gpus) {
    const NodeId node = cluster_.node_of(g);
    const int64_t limit =
        mode_.memory_limit_mib(r.gpu_memory_mib, cluster_.gpu_memory_capacity(node));
    if (limit < 0 || peak_mib <= limit) continue;
    o.reason = reasons_.add(fmt::format(
        "out of memory on {} GPU {}: peak {} MiB over its {} limit of {} MiB",
        cluster_.node_name(node), g - cluster_.first_gpu(node), peak_mib, mode_.kind(), limit));
    o.failure = FailureCause::kOverMemoryCap;
    return true;
  }
  if (const double q = mode_.client_fault_probability(); q > 0 && rng_.uniform() < q) {
    o.reason =
        reasons_.add(fmt::format("{} client fault (modelled, probability {:g})", mode_.kind(), q));
    o.failure = FailureCause::kClientFault;
    return true;
  }
  return false;
}

bool FailureModel::fails_for_memory(uint32_t pod, const PodRequest& r, std::span<const GpuId> gpus,
                                    const SharingRun& sharing, PodOutcome& o) const {
  // A partitioned GPU (MIG): only the pod's own partition can be too small for it.
  for (const GpuId g : gpus) {
    const int64_t cap = sharing.partition_memory_mib(g, pod);
    if (cap < 0 || r.gpu_memory_mib <= cap) continue;
    const NodeId node = cluster_.node_of(g);
    o.reason = reasons_.add(fmt::format("out of memory in {} on {} GPU {}: needs {} MiB of {}",
                                        sharing.partition_name(g, pod), cluster_.node_name(node),
                                        g - cluster_.first_gpu(node), r.gpu_memory_mib, cap));
    o.failure = FailureCause::kInstanceMemory;
    return true;
  }
  // Overcommitted memory (HAMi's deviceMemoryScaling > 1): admission counted requests against
  // more than the GPU holds; what the tenants really use must still fit in it.
  for (const GpuId g : gpus) {
    const auto use = sharing.overcommitted_memory(g, pod);
    const NodeId node = cluster_.node_of(g);
    const int64_t cap = cluster_.gpu_memory_capacity(node);
    if (!use || use->tenants_mib - idle(idle_use_mib_, g) <= cap) continue;
    o.reason = reasons_.add(fmt::format(
        "out of memory on {} GPU {}: its tenants use {} MiB (this pod {} MiB) of the GPU's {} "
        "MiB; {} admitted requests up to {} MiB",
        cluster_.node_name(node), g - cluster_.first_gpu(node),
        use->tenants_mib - idle(idle_use_mib_, g), use->own_mib, cap, mode_.kind(),
        use->admitted_mib));
    o.failure = FailureCause::kOvercommittedMemory;
    return true;
  }
  if (mode_.isolates_memory()) return false;
  for (const GpuId g : gpus) {
    const NodeId node = cluster_.node_of(g);
    const int64_t cap = cluster_.gpu_memory_capacity(node);
    const int64_t used = cluster_.gpu_memory_used(g) - idle(idle_mib_, g);  // includes this pod
    if (used <= cap) continue;
    o.reason = reasons_.add(
        fmt::format("out of memory on {} GPU {}: needs {} MiB, neighbours hold {} of {} MiB",
                    cluster_.node_name(node), g - cluster_.first_gpu(node), r.gpu_memory_mib,
                    used - r.gpu_memory_mib, cap));
    o.failure = FailureCause::kNeighboursMemory;
    return true;
  }
  return false;
}

void FailureModel::set_idle(uint32_t pod, const PodRequest& r, std::span<const GpuId> gpus,
                            const SharingRun& sharing, int sign) {
  if (idle_mib_.empty()) {
    idle_mib_.assign(cluster_.gpu_count(), 0);
    idle_use_mib_.assign(cluster_.gpu_count(), 0);
  }
  for (const GpuId g : gpus) {
    idle_mib_[g] += sign * r.gpu_memory_mib;
    if (const auto use = sharing.overcommitted_memory(g, pod))
      idle_use_mib_[g] += sign * use->own_mib;
  }
}

}  // namespace slicelab
