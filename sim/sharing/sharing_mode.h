// The seam for how one GPU is shared: how its capacity is cut and admitted, and how fast its
// co-located pods progress. Whole-card and time-slice live here; MIG, MPS and interposer plug in.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/sharing/interference_model.h"
#include "sim/sharing/tenant_load.h"
#include "workloads/input_limits.h"

namespace slicelab {

class SharingRun;  // sim/sharing/sharing_run.h
struct RunSetup;

// What a sharing mode declares about one GPU for the rate solver (sim/sharing/gpu_rate_solver.h):
// the GPU time its tenants share and how neighbours' traffic slows each of them.
struct GpuTerms {
  // Share of the GPU's time the tenants divide, max-min fair within their bounds (1 = all of
  // it; time-slicing loses its switch overhead; kUnlimited: the mode models no contention).
  double capacity = 1.0;
  InterferenceCoefficients interference{};
  static constexpr double kUnlimited = 1e300;
};

// What a sharing mode declares about one tenant of one GPU.
struct TenantTerms {
  // The most of the GPU's time it may take however much is free: a thread percentage, a MIG
  // instance's SMs, a limiter's achieved share, a fixed vGPU slice. Its demand bounds it too.
  double bound = GpuTerms::kUnlimited;
  // The share the mode promises it (min(cap, demand) for capped modes); its isolation error is
  // |promised - demand x rate|. Negative: the mode promises nothing and no error is measured.
  double promised = -1.0;
  // >= 1: the mode's own cost per unit of progress (the interposer's hooks on every launch).
  double overhead = 1.0;
};

class SharingMode {
 public:
  virtual ~SharingMode() = default;
  virtual std::string_view kind() const = 0;
  // Human-readable settings, e.g. "time-slice (4 replicas, 5% switch overhead)".
  virtual std::string describe() const = 0;
  // Capacity units per GPU and what one pod claims of them: the scheduler's view.
  virtual int capacity_units() const = 0;
  virtual int claim_units(int gpu_milli) const = 0;
  virtual int max_tenants() const = 0;
  // False when tenants' memory is not isolated, so a newcomer can run out of memory that its
  // neighbours hold (the engine then fails it as a real GPU would fail its allocation).
  virtual bool isolates_memory() const = 0;
  // Declares GPU g's terms for the tenants it holds now (`terms[k]` for `tenants[k]`, in
  // arrival order); the one rate solver turns them into rates and isolation errors. A function
  // of `tenants` alone: the engine keeps what it gave a lone tenant's load for the run.
  virtual GpuTerms declare(std::span<const TenantLoad> tenants,
                           std::span<TenantTerms> terms) const = 0;

  // Hard device-memory limit of one tenant (MiB) given its request and the GPU's memory; a
  // tenant whose peak exceeds it fails with out-of-memory. -1: the mode sets no limit.
  virtual int64_t memory_limit_mib(int64_t /*request_mib*/, int64_t /*gpu_memory_mib*/) const {
    return -1;
  }
  // Chance that a failing tenant takes down each neighbour on its GPU (no fault isolation).
  virtual double fault_propagation() const { return 0.0; }
  // Chance that a tenant hits a fatal fault of its own when it starts (a modelled crash).
  virtual double client_fault_probability() const { return 0.0; }
  // How long a tenant whose work arrives while a neighbour holds the GPU waits for its turn: under
  // time-slicing, the rest of the holder's slice (uniform in [0, slice_s)) and one context
  // switch. Zero: tenants run side by side or isolated, and nobody waits for a turn. Only
  // request latency sees it (sim/serving/); the rate solver already charges switching time.
  struct TurnWait {
    double slice_s = 0.0;
    double switch_s = 0.0;
  };
  virtual TurnWait turn_wait() const { return {}; }
  // > 0: a pod asking for more GPUs than this fails as it is bound, as the NVIDIA device plugin
  // fails its Allocate under failRequestsGreaterThanOne; 0: any count.
  virtual int max_gpus_per_pod() const { return 0; }

  // The mode's state for one run (MIG: its instances and placement plugins). The default holds
  // nothing and changes nothing: units alone decide placement.
  virtual std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const;
};

}  // namespace slicelab
