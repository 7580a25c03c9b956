// The seam for how one GPU is shared: how its capacity is cut and admitted, and how fast its
// co-located pods progress. Whole-card and time-slice live here; MIG, MPS and interposer plug in.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace slicelab {

// What one tenant of a GPU asks of it, as the rate model sees it.
struct TenantLoad {
  double sm_demand = 1.0;  // share of the GPU's SM time it would use running alone, 0..1
  int64_t memory_mib = 0;
  // MIG: share of the GPU's SMs the tenant is confined to (its instance's SMs / the GPU's);
  // 1 = the whole GPU, as in every other mode.
  double sm_cap = 1.0;
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
};

}  // namespace slicelab
