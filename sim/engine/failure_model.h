// Why a pod that was placed cannot run: out of memory (its neighbours hold the GPU's memory, or
// its own partition is too small), its own limits, modelled client faults, and the faults that
// spread to its neighbours where a mode has no fault isolation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/interference/workload_class.h"
#include "sim/metrics/reason_table.h"
#include "sim/metrics/run_result.h"
#include "sim/sharing/sharing_mode.h"
#include "sim/sharing/sharing_run.h"
#include "workloads/input_limits.h"
#include "workloads/pod_spec.h"
#include "workloads/rng.h"

namespace slicelab {

// The device memory a pod really uses at its peak: the trace's (gpu_memory_used_mib), else its
// workload class's, else its request.
inline int64_t peak_memory_mib(const PodSpec& spec, const WorkloadClass* wc, const PodRequest& r) {
  if (spec.gpu_memory_used_mib > 0) return spec.gpu_memory_used_mib;
  return wc != nullptr && wc->memory_mib > 0 ? wc->memory_mib : r.gpu_memory_mib;
}

// Contract: checks run as a pod starts, after it was bound to `gpus` (so the cluster's memory
// counts include it) and before it becomes a tenant. A failing check writes the reason and
// the cause into the pod's outcome; the caller unbinds it. Random draws happen only where the
// mode models the fault, so other modes' random streams are unchanged.
class FailureModel {
 public:
  // Reasons go into `reasons`, the run's table of texts that outcomes name by index.
  FailureModel(const SharingMode& mode, const ClusterState& cluster, Rng& rng, ReasonTable& reasons)
      : mode_(mode), cluster_(cluster), rng_(rng), reasons_(reasons) {}

  void prepare() { victims_.reserve(static_cast<size_t>(kMaxTenantsPerGpu)); }

  // Capped modes: the pod's peak device memory `peak_mib` (its workload class's, else its
  // request's) over its hard memory limit, or a modelled client fault.
  bool fails_own_limit(int64_t peak_mib, const PodRequest& r, std::span<const GpuId> gpus,
                       PodOutcome& o);
  // Its partition (MIG instance) too small for it, its GPU's tenants really using more than
  // the GPU holds where the mode overcommits memory (HAMi), or, without memory isolation, the
  // GPU's memory over-committed by its neighbours.
  bool fails_for_memory(uint32_t pod, const PodRequest& r, std::span<const GpuId> gpus,
                        const SharingRun& sharing, PodOutcome& o) const;

  // The pod failed with a fault of its own: each neighbour on its GPUs (`tenants_of(g)`) fails
  // with the mode's propagation probability, one draw per neighbour in tenant (arrival) order;
  // after the draws of one GPU, `fail(victim)` is called for each one drawn there (the caller
  // skips a victim that is no longer running).
  template <typename TenantsOf, typename Fail>
  void propagate_fault(std::span<const GpuId> gpus, TenantsOf tenants_of, Fail fail) {
    const double q = mode_.fault_propagation();
    if (q <= 0) return;
    for (const GpuId g : gpus) {
      // Collect first: failing a neighbour removes it from this GPU's tenants.
      const std::span<const uint32_t> tenants = tenants_of(g);
      victims_.clear();
      for (const uint32_t t : tenants)
        if (rng_.uniform() < q) victims_.push_back(t);
      for (const uint32_t v : victims_) fail(v);
    }
  }

 private:
  const SharingMode& mode_;
  const ClusterState& cluster_;
  Rng& rng_;
  ReasonTable& reasons_;
  std::vector<uint32_t> victims_;  // scratch; a GPU holds at most kMaxTenantsPerGpu
};

}  // namespace slicelab
