#include "sim/placement/topology_picker.h"

#include <array>
#include <cstdint>

#include "sim/topology/gpu_topology.h"
#include "workloads/input_limits.h"

namespace slicelab {

bool TopologyDevicePicker::pick(const SchedulingCycle& cycle, NodeId node,
                                std::span<GpuId> out) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return true;
  const GpuTopology* topo = cluster.topology(node);
  const int gpus = cluster.gpus_on(node);
  if (topo == nullptr || topo->gpu_count() != gpus) return fallback_.pick(cycle, node, out);

  const GpuId first = cluster.first_gpu(node);
  std::array<int, kMaxGpusPerNode> cand{};
  std::array<int64_t, kMaxGpusPerNode> free{};
  size_t m = 0;
  uint64_t idle = 0;  // bit i: local GPU i is untouched
  for (int i = 0; i < gpus; ++i) {
    const int f = cluster.gpu_free_units(first + static_cast<GpuId>(i));
    if (f == cluster.capacity_units()) idle |= uint64_t{1} << i;
    if (f < req.claim_units) continue;
    cand[m] = i;
    free[m] = f;
    ++m;
  }
  const auto k = static_cast<size_t>(req.gpu_count);
  if (m < k) return false;

  if (k == 1) {
    // A partly used GPU first (taking it breaks no idle group: binpack), then the card least
    // connected to the other idle cards, then the one whose NVLink island has the fewest idle
    // cards left, so that well-connected groups stay whole for later multi-GPU pods.
    const auto& island = topo->nvlink_component();
    std::array<int, kMaxGpusPerNode> island_idle{};
    for (int i = 0; i < gpus; ++i)
      if (idle & (uint64_t{1} << i))
        ++island_idle[static_cast<size_t>(island[static_cast<size_t>(i)])];
    size_t best = m;
    int64_t best_conn = 0;
    for (size_t c = 0; c < m; ++c) {
      int64_t conn = 0;
      for (int h = 0; h < gpus; ++h)
        if (h != cand[c] && (idle & (uint64_t{1} << h))) conn += topo->score(cand[c], h);
      const auto isl = [&](size_t x) {
        return island_idle[static_cast<size_t>(island[static_cast<size_t>(cand[x])])];
      };
      if (best == m || free[c] < free[best] ||
          (free[c] == free[best] &&
           (conn < best_conn || (conn == best_conn && isl(c) < isl(best))))) {
        best = c;
        best_conn = conn;
      }
    }
    out[0] = first + static_cast<GpuId>(cand[best]);
    return true;
  }

  // Highest total pair score; among equals the fuller GPUs (binpack), then the lowest indices.
  std::array<int, kMaxGpusPerNode> chosen{};
  best_subset(*topo, std::span<const int>(cand.data(), m), req.gpu_count,
              std::span<const int64_t>(free.data(), m), chosen);
  for (size_t i = 0; i < k; ++i) out[i] = first + static_cast<GpuId>(chosen[i]);
  return true;
}

}  // namespace slicelab
