// What one tenant of a GPU asks of it, as the rate solver sees it: its solo demand for SM time,
// its memory, and the traffic that slows its neighbours (bandwidth, kernel launches).
#pragma once

#include <cstdint>

namespace slicelab {

struct TenantLoad {
  double sm_demand = 1.0;  // share of the GPU's SM time it would use running alone, 0..1
  int64_t memory_mib = 0;
  // MIG: share of the GPU's SMs the tenant is confined to (its instance's SMs / the GPU's);
  // 1 = the whole GPU, as in every other mode.
  double sm_cap = 1.0;
  double cap = 1.0;         // configured compute share: its claim over the GPU's capacity
  double bandwidth = 0.0;   // its workload class's memory-bandwidth share alone, 0..1
  double launch_khz = 0.0;  // its workload class's kernel launches per millisecond

  bool operator==(const TenantLoad&) const = default;
};

}  // namespace slicelab
