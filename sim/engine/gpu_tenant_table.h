// The pods running on each GPU (fixed slots per GPU, in arrival order) and the progress rate
// and isolation error the one rate solver gives each of them; recomputed when tenants change.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/engine/pod_gpus.h"
#include "sim/interference/workload_class.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "sim/sharing/sharing_mode.h"
#include "sim/sharing/sharing_run.h"
#include "sim/sharing/tenant_load.h"
#include "workloads/input_limits.h"

namespace slicelab {

// A pod's load as the rate solver sees it: its request's share of the GPU (of `capacity_units`)
// and memory, or where it has a workload class (issue 4; may be null) the class's demands.
TenantLoad tenant_load(const PodRequest& r, const WorkloadClass* wc, int capacity_units);

// Told by the table around each change of a pod's rate or error, so that the pod's progress so
// far accrues at the old values and its finish moves with the new rate.
class RateChangeListener {
 public:
  virtual void before_rate_change(uint32_t pod) = 0;
  virtual void rate_changed(uint32_t pod) = 0;

 protected:
  ~RateChangeListener() = default;
};

// What a GPU delivers now: its SM time used (0..1) and its memory used over its memory.
struct GpuUsage {
  double sm = 0;
  double memory = 0;
};

// Contract: a GPU holds at most the mode's max_tenants() (<= kMaxTenantsPerGpu) tenants, kept
// in arrival order (the out-of-memory rule and ties depend on it). rate(p) is the pod's
// progress per second of its run time at solo speed times its GPU's relative speed; error(p)
// its current isolation error (-1: none promised). Both change only in recompute(). A GPU
// whose tenants are all on it alone is solved on its own, exactly as the one-GPU solver does.
class GpuTenantTable {
 public:
  GpuTenantTable(const SharingMode& mode, const ClusterState& cluster, const PodGpus& pod_gpus);

  // Sizes the per-pod state; `load(p)` must then be filled before the pod starts.
  void prepare(std::span<const PodRequest> requests);
  TenantLoad& load(uint32_t pod) { return load_[pod]; }

  // The pod starts now on its GPUs (`speed`: its GPU model's relative speed); rate 0 until
  // recomputed. A pod on no GPU runs alone at rate 1.
  void start(uint32_t pod, double speed);
  void run_alone(uint32_t pod) { rate_[pod] = 1.0; }
  void add(GpuId g, uint32_t pod);
  void remove(GpuId g, uint32_t pod);
  std::span<const uint32_t> tenants(GpuId g) const {
    return std::span<const uint32_t>(pod_).subspan(g * max_tenants_, count_[g]);
  }

  // Solves anew every GPU connected to `gpus` (all on one node) through multi-GPU tenants and
  // updates their tenants' rates and errors, telling `listener`. A connected set of GPUs is one
  // solver problem: a multi-GPU pod is one variable over all its GPUs, so the share it cannot
  // use on one GPU (held back on another) goes to its neighbours there.
  void recompute(std::span<const GpuId> gpus, const SharingRun& run, RateChangeListener& listener);
  // The GPUs the last recompute() solved, whose usage may have changed.
  std::span<const GpuId> recomputed() const { return recomputed_; }

  double rate(uint32_t pod) const { return rate_[pod]; }
  double error(uint32_t pod) const { return error_[pod]; }
  GpuUsage usage(GpuId g) const;

 private:
  void solve(std::span<const GpuId> component, const SharingRun& run, RateChangeListener& listener);

  const SharingMode& mode_;
  const ClusterState& cluster_;
  const PodGpus& pod_gpus_;
  size_t max_tenants_;

  // Per GPU: tenants in fixed-size slots.
  std::vector<uint32_t> pod_;
  std::vector<uint8_t> count_;

  // Per pod.
  std::vector<TenantLoad> load_;
  std::vector<double> sm_use_;  // SM share of a GPU it uses at solo speed (gpu_milli / 1000)
  std::vector<double> speed_, rate_, error_;

  // Scratch for one solve: the GPUs, their pods (variable v is pods_[v]; var_of_ maps back and
  // is kNoVar outside a solve), one GPU's loads and variables, the results per variable.
  GpuRateSolver solver_;
  std::vector<GpuId> recomputed_;
  std::vector<uint32_t> pods_, var_of_;
  std::array<TenantLoad, kMaxTenantsPerGpu> loads_{};
  std::array<uint32_t, kMaxTenantsPerGpu> vars_{};
  std::vector<double> rates_, errors_;
};

}  // namespace slicelab
