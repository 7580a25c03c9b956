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

// What a pod really uses of each GPU's memory at its peak: what its trace measured
// (PodSpec::gpu_memory_used_mib), else its workload class's peak, else its request; 0 = none.
inline int64_t peak_memory_mib(int64_t used_mib, int64_t class_mib, int64_t request_mib) {
  if (used_mib > 0) return used_mib;
  return class_mib > 0 ? class_mib : request_mib;
}
inline int64_t peak_memory_mib(const PodSpec& spec, const WorkloadClass* wc, const PodRequest& r) {
  return peak_memory_mib(spec.gpu_memory_used_mib, wc != nullptr ? wc->memory_mib : 0,
                         r.gpu_memory_mib);
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

  // The device plugin's own refusal (failRequestsGreaterThanOne): more shared GPUs than the
  // mode's max_gpus_per_pod. Checked first: the kubelet fails the pod before its container runs.
  bool fails_allocation(const PodRequest& r, PodOutcome& o) const;
  // Capped modes: the pod's peak device memory `peak_mib` (peak_memory_mib: a tenant capped at
  // its request that really uses more fails) over its hard memory limit, or a modelled client
  // fault.
  bool fails_own_limit(int64_t peak_mib, const PodRequest& r, std::span<const GpuId> gpus,
                       PodOutcome& o);
  // Its partition (MIG instance) too small for it, its GPU's tenants really using more than
  // the GPU holds where the mode overcommits memory (HAMi), or, without memory isolation, the
  // GPU's memory over-committed by its neighbours.
  bool fails_for_memory(uint32_t pod, const PodRequest& r, std::span<const GpuId> gpus,
                        const SharingRun& sharing, PodOutcome& o) const;

  // A pod bound in its back-off (restarting in place) runs no process: what it would use of its
  // GPUs' memory is not in use there until it restarts. `sign`: +1 as it fails, -1 as it
  // restarts (before its checks, which count its own memory as bound pods' is).
  void set_idle(uint32_t pod, const PodRequest& r, std::span<const GpuId> gpus,
                const SharingRun& sharing, int sign);

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
  // Per GPU, once a pod restarts in place: the requests and the real use (overcommitting modes)
  // of the pods bound there in their back-off.
  std::vector<int64_t> idle_mib_, idle_use_mib_;
  int64_t idle(const std::vector<int64_t>& v, GpuId g) const { return v.empty() ? 0 : v[g]; }
};

}  // namespace slicelab
