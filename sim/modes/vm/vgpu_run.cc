#include "sim/modes/vm/vgpu_run.h"

#include <algorithm>

namespace slicelab {

VgpuRun::VgpuRun(const RunSetup& setup, const VmSettings& settings)
    : pods_(setup.pods),
      settings_(settings),
      state_(setup.cluster, setup.catalog, settings.profile, setup.pods, setup.requests),
      held_(setup.pods.size()) {}

bool VgpuRun::pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) {
  const int need = cycle.req.gpu_count;
  if (need == 0) return true;
  std::erase_if(nodes, [&](NodeId n) { return state_.usable_gpus(n, cycle.pod) < need; });
  return !nodes.empty();
}

bool VgpuRun::reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) {
  const uint32_t p = cycle.pod;
  const int need = cycle.req.gpu_count;
  if (need == 0) return true;
  if (state_.usable_gpus(node, p) < need) return false;
  const auto out = gpus.first(static_cast<size_t>(need));
  state_.choose(node, p, out);
  held_[p] = {cycle.req.claim_units, true};
  // The pod's real claim is its type's share (same model on all its GPUs).
  cycle.req.claim_units = state_.claim_units(out[0], p);
  for (const GpuId g : out) state_.occupy(g, p);
  return true;
}

void VgpuRun::unreserve(const SchedulingCycle& cycle, NodeId /*node*/,
                        std::span<const GpuId> gpus) {
  const uint32_t p = cycle.pod;
  if (!held_[p].held) return;
  cycle.req.claim_units = held_[p].claim_before;
  release(p, gpus);
}

void VgpuRun::release(uint32_t pod, std::span<const GpuId> gpus) {
  if (!held_[pod].held) return;
  for (const GpuId g : gpus) state_.release(g, pod);
  held_[pod] = Held{};
}

void VgpuRun::apply_sm_caps(GpuId g, std::span<const uint32_t> pods,
                            std::span<TenantLoad> loads) const {
  for (size_t k = 0; k < pods.size(); ++k)
    if (const VgpuProfile* q = state_.pod_profile(g, pods[k]))
      loads[k].cap = 1.0 / static_cast<double>(q->max_per_gpu);
}

int64_t VgpuRun::partition_memory_mib(GpuId g, uint32_t pod) const {
  const VgpuProfile* q = state_.pod_profile(g, pod);
  return q ? q->framebuffer_mib() : -1;
}

std::string VgpuRun::partition_name(GpuId g, uint32_t pod) const {
  const VgpuProfile* q = state_.pod_profile(g, pod);
  return q ? "vGPU " + std::string(q->name) : "GPU";
}

}  // namespace slicelab
