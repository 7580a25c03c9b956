// The pods running on each GPU (fixed slots per GPU, in arrival order) and the progress rate
// and isolation error the one rate solver gives each of them; recomputed when tenants change.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/interference/workload_class.h"
#include "sim/prefetch.h"
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
  GpuTenantTable(const SharingMode& mode, const ClusterState& cluster);

  // Sizes the map from pods to slots; a pod holds a slot from start() to retire().
  void prepare(size_t pods);
  // Frees that map (4 bytes per pod of the run) once nothing asks for a pod's state any more.
  void forget_pods() { std::vector<uint32_t>().swap(slot_of_); }

  // The pod starts now on `gpus` (all on one node; it holds them until retire(), and add()
  // makes it their tenant) with `load` (see tenant_load(); `sm_use`: the SM share of a GPU it
  // uses at solo speed, `speed`: its GPU model's relative speed); rate 0 until recomputed. It
  // takes a slot of per-tenant state, reused after retire(), so the table holds state only for
  // the pods that run now (a slot number is also the engine's index for them, and its events').
  uint32_t start(uint32_t pod, std::span<const GpuId> gpus, const TenantLoad& load, double sm_use,
                 double speed);
  // The pod runs no more (it left its GPUs, or never became a tenant): its slot is free.
  void retire(uint32_t pod);
  uint32_t slot(uint32_t pod) const { return slot_of_[pod]; }
  // The pod in a slot in use.
  uint32_t pod_in(uint32_t slot) const { return live_[slot].pod; }
  // The GPUs a pod holds from start() to retire().
  std::span<const GpuId> gpus_of(uint32_t pod) const {
    const uint32_t s = slot_of_[pod];
    return std::span<const GpuId>(gpus_).subspan(s * gpus_per_slot_, live_[s].gpu_count);
  }
  // Hints in two steps, one event apart, so that neither waits on memory: prefetch_slot(s)
  // fetches the slot's own state; prefetch_leave(s) then reads it (the pod in the slot leaves
  // its GPUs soon), fetches the pod's and its GPUs' tenant state and returns its GPUs
  // (s < slots(); a free slot's are those of its last pod).
  void prefetch_slot(uint32_t slot) const {
    prefetch_for_write(&live_[slot]);
    if (gpus_per_slot_ != 0) prefetch_for_read(&gpus_[slot * gpus_per_slot_]);  // none: no GPUs
  }
  std::span<const GpuId> prefetch_leave(uint32_t slot) const {
    const Tenant& t = live_[slot];
    if (t.pod < slot_of_.size()) prefetch_for_write(&slot_of_[t.pod]);
    const auto gpus = std::span<const GpuId>(gpus_).subspan(slot * gpus_per_slot_, t.gpu_count);
    prefetch_gpus(gpus);
    return gpus;
  }
  // A hint: tenants join or leave `gpus` soon.
  void prefetch_gpus(std::span<const GpuId> gpus) const {
    for (const GpuId g : gpus) prefetch_for_write(&pod_[g * max_tenants_]);
    if (!gpus.empty()) prefetch_for_write(&count_[gpus.front()]);
  }
  // Slots ever in use at once: an upper bound of slot(pod) for the engine's own per-slot state.
  size_t slots() const { return live_.size(); }
  TenantLoad& load(uint32_t pod) { return live_[slot_of_[pod]].load; }

  // A pod on no GPU runs alone at rate 1.
  void run_alone(uint32_t pod) { live_[slot_of_[pod]].rate = 1.0; }
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

  double rate(uint32_t pod) const { return live_[slot_of_[pod]].rate; }
  double error(uint32_t pod) const { return live_[slot_of_[pod]].error; }
  GpuUsage usage(GpuId g) const;

 private:
  void solve(std::span<const GpuId> component, const SharingRun& run, RateChangeListener& listener);
  // A pod alone on all the GPUs of its component (every pod under whole cards) with the same
  // load on each: its rate and error, from the memo when the mode solved that load before.
  bool solve_alone(std::span<const GpuId> component, const SharingRun& run);
  void apply(size_t vars, RateChangeListener& listener);

  const SharingMode& mode_;
  const ClusterState& cluster_;
  size_t max_tenants_;
  size_t gpus_per_slot_;  // the most GPUs a node has

  // Per GPU: tenants in fixed-size slots.
  std::vector<uint32_t> pod_;
  std::vector<uint8_t> count_;

  // Per running pod, in slots reused through free_ (a million-pod run keeps a few thousand).
  struct Tenant {
    TenantLoad load;
    double sm_use = 0;  // SM share of a GPU it uses at solo speed (gpu_milli / 1000)
    double speed = 1.0, rate = 0.0, error = -1.0;
    uint32_t var = UINT32_MAX;  // its variable in the solve under way; none outside a solve
    uint32_t pod = UINT32_MAX;
    uint8_t gpu_count = 0;  // its GPUs: gpus_ from its slot times gpus_per_slot_
  };
  std::vector<uint32_t> slot_of_;  // per pod of the run
  std::vector<Tenant> live_;
  std::vector<GpuId> gpus_;  // per slot, gpus_per_slot_ entries
  std::vector<uint32_t> free_;

  // Scratch for one solve: the GPUs, their pods (variable v is pods_[v]; Tenant::var maps back),
  // one GPU's loads and variables, the results per variable.
  GpuRateSolver solver_;
  std::vector<GpuId> recomputed_;
  std::vector<uint32_t> pods_;
  std::array<TenantLoad, kMaxTenantsPerGpu> loads_{};
  std::array<uint32_t, kMaxTenantsPerGpu> vars_{};
  std::vector<double> rates_, errors_;

  // What the solver gave a lone pod: a pure function of the mode (fixed for the run), its load
  // on each GPU after the run's caps and its GPU count. A run has few distinct requests, so a
  // few entries, replaced in turn, hold them all.
  struct AloneSolution {
    TenantLoad load;
    size_t gpus = 0;
    double rate = 0, error = -1;
  };
  std::array<AloneSolution, 16> alone_{};
  size_t alone_used_ = 0, alone_next_ = 0;
};

}  // namespace slicelab
