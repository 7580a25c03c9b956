// The seam for how one GPU is shared: how its capacity is cut and admitted, and how fast its
// co-located pods progress. Whole-card and time-slice live here; MIG, MPS and interposer plug in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace slicelab {

class SharingRun;  // sim/sharing/sharing_run.h
struct RunSetup;

// What one tenant of a GPU asks of it, as the rate model sees it.
struct TenantLoad {
  double sm_demand = 1.0;  // share of the GPU's SM time it would use running alone, 0..1
  int64_t memory_mib = 0;
  // MIG: share of the GPU's SMs the tenant is confined to (its instance's SMs / the GPU's);
  // 1 = the whole GPU, as in every other mode.
  double sm_cap = 1.0;
  // --- capped modes and the interference model (MPS, interposer; issue 4) ---
  double cap = 1.0;         // configured compute share: its claim over the GPU's capacity
  double bandwidth = 0.0;   // its workload class's memory-bandwidth share alone, 0..1
  double launch_khz = 0.0;  // its workload class's kernel launches per millisecond
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
  // Progress rate of each tenant (1 = its solo speed) given all tenants of one GPU.
  virtual void rates(std::span<const TenantLoad> tenants, std::span<double> out) const = 0;

  // --- capped modes: isolation error, hard memory limits, fault propagation (issue 4) ---
  // Rates as above and, per tenant, its isolation error: |promised - delivered| share of the GPU
  // (docs/sharing-models.md), or -1 where the mode promises no share.
  virtual void progress(std::span<const TenantLoad> tenants, std::span<double> rates_out,
                        std::span<double> isolation_error) const {
    rates(tenants, rates_out);
    std::fill(isolation_error.begin(), isolation_error.end(), -1.0);
  }
  // Hard device-memory limit of one tenant (MiB) given its request and the GPU's memory; a
  // tenant whose peak exceeds it fails with out-of-memory. -1: the mode sets no limit.
  virtual int64_t memory_limit_mib(int64_t /*request_mib*/, int64_t /*gpu_memory_mib*/) const {
    return -1;
  }
  // Chance that a failing tenant takes down each neighbour on its GPU (no fault isolation).
  virtual double fault_propagation() const { return 0.0; }
  // Chance that a tenant hits a fatal fault of its own when it starts (a modelled crash).
  virtual double client_fault_probability() const { return 0.0; }

  // The mode's state for one run (MIG: its instances and placement plugins). The default holds
  // nothing and changes nothing: units alone decide placement.
  virtual std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const;
};

}  // namespace slicelab
