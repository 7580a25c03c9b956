// What a sharing mode keeps for one run and the engine consults without knowing the mode: the
// placement plugins it adds (MIG: instances), per-tenant caps, start delays and its summary
// figures.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"
#include "sim/metrics/run_result.h"
#include "sim/placement/placement_policy.h"
#include "sim/pod_request_view.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// What a run's sharing state is built from. The spans stay valid, and in place, for the run.
struct RunSetup {
  const ClusterState& cluster;
  const GpuCatalog& catalog;
  std::span<const PodSpec> pods;
  PodRequestView requests;  // per pod, as the engine prepared them
};

// The default serves every mode that shares a GPU by capacity units alone: no plugins, no caps
// beyond the rate model's, no delays. `pod` is the pod's index in the run.
class SharingRun : public ModePlacement {
 public:
  virtual ~SharingRun() = default;

  // Placement plugins the engine attaches after its own; they live as long as this object.
  virtual RunPlugins plugins() { return {}; }

  // Why the pod can never be placed under this mode (asked after the cluster-wide check passed,
  // for GPU pods only), or nullopt.
  virtual std::optional<std::string> never_fits(uint32_t /*pod*/) const { return std::nullopt; }
  // The pod no longer waits: placed, or given up on as never fitting.
  virtual void pod_left_queue(uint32_t /*pod*/) {}
  // Seconds from the pod's placement to its start (MIG: its GPUs are being re-partitioned);
  // read right after a successful schedule().
  virtual double start_delay_s(uint32_t /*pod*/) const { return 0.0; }
  // The pod ended: gives back what its reservation held. Called after the cluster unbound it.
  virtual void release(uint32_t /*pod*/, std::span<const GpuId> /*gpus*/) {}
  // A hint: release(pod, gpus) (on node n, gpus not empty) comes soon; fetches what it touches.
  virtual void prefetch_release(uint32_t /*pod*/, NodeId /*n*/,
                                std::span<const GpuId> /*gpus*/) const {}

  // Sets each tenant's sm_cap on GPU g (`pods[k]` is the tenant of `loads[k]`).
  virtual void apply_sm_caps(GpuId /*g*/, std::span<const uint32_t> /*pods*/,
                             std::span<TenantLoad> /*loads*/) const {}
  // Memory of the pod's own partition of GPU g (MIG: its instance), which no neighbour can
  // take; -1 where the GPU's memory is not partitioned.
  virtual int64_t partition_memory_mib(GpuId /*g*/, uint32_t /*pod*/) const { return -1; }
  // How messages name that partition, e.g. "MIG instance 1g.10gb@2".
  virtual std::string partition_name(GpuId /*g*/, uint32_t /*pod*/) const { return "GPU"; }
  // Where admission lets requests exceed a GPU's memory (HAMi's deviceMemoryScaling above 1):
  // what GPU g's tenants really use, the starting pod included, and what it uses itself;
  // nullopt where the mode does not overcommit memory.
  struct MemoryInUse {
    int64_t tenants_mib = 0;
    int64_t own_mib = 0;
    int64_t admitted_mib = 0;  // what admission counts the GPU as holding
  };
  virtual std::optional<MemoryInUse> overcommitted_memory(GpuId /*g*/, uint32_t /*pod*/) const {
    return std::nullopt;
  }

  // GPU capacity (in GPUs) left free where no waiting or future pod can use it; the engine
  // integrates it over time.
  virtual double stranded_gpus() const { return 0.0; }
  // True when pods with equal requests fit the same nodes, so that backfill may skip a request
  // that already failed in this pass (not under MIG: equal requests can take different profiles).
  virtual bool equal_requests_fit_alike() const { return true; }
  // Writes the mode's own results into the run's summary at its end (MIG: re-partitionings and
  // stranded capacity; DRA: every claim allocated, for claims.json), given the integral of
  // stranded_gpus() and the GPU-seconds of the window. The default writes nothing.
  virtual void write_results(RunSummary& /*summary*/, double /*stranded_gpu_s*/,
                             double /*gpu_s*/) const {}
};

}  // namespace slicelab
