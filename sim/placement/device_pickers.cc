#include "sim/placement/device_pickers.h"

#include <algorithm>
#include <array>
#include <utility>

#include "workloads/input_limits.h"

namespace slicelab {

std::string_view OrderedDevicePicker::name() const {
  switch (order_) {
    case Order::kFullestFirst:
      return "binpack";
    case Order::kEmptiestFirst:
      return "spread";
    case Order::kLowestIndex:
      return "first";
    case Order::kRandom:
      return "random";
  }
  return "?";
}

bool OrderedDevicePicker::pick(const SchedulingCycle& cycle, NodeId node,
                               std::span<GpuId> out) const {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return true;
  const bool whole = req.claim_units >= cluster.capacity_units();
  const GpuId first = cluster.first_gpu(node);
  const int count = std::min(cluster.gpus_on(node), kMaxGpusPerNode);
  const auto k = static_cast<size_t>(req.gpu_count);
  if (whole || order_ == Order::kLowestIndex) {
    // Every key is equal: the lowest-indexed GPUs with room, in index order, without a sort.
    size_t n = 0;
    for (int i = 0; i < count && n < k; ++i) {
      const GpuId g = first + static_cast<GpuId>(i);
      if (cluster.gpu_free_units(g) >= req.claim_units) out[n++] = g;
    }
    return n == k;
  }
  // (sort key, gpu) for every GPU of the node that has room; nodes hold at most kMaxGpusPerNode.
  // The GPU id in the pair makes equal keys go to the lower index. Not value-initialised: only
  // the first n entries are read, and zeroing all 64 was a third of this function's time.
  std::array<std::pair<int64_t, GpuId>, kMaxGpusPerNode> fit;  // NOLINT(*-member-init)
  size_t n = 0;
  for (int i = 0; i < count; ++i) {
    const GpuId g = first + static_cast<GpuId>(i);
    const int free = cluster.gpu_free_units(g);
    if (free < req.claim_units) continue;
    int64_t key = 0;
    switch (order_) {
      case Order::kFullestFirst:
        key = free;
        break;
      case Order::kEmptiestFirst:
        key = -free;
        break;
      case Order::kLowestIndex:
        break;
      case Order::kRandom:
        key = static_cast<int64_t>(cycle.rng.below(uint64_t{1} << 40));
        break;
    }
    fit[n++] = {key, g};
  }
  if (n < k) return false;
  std::partial_sort(fit.begin(), fit.begin() + static_cast<std::ptrdiff_t>(k),
                    fit.begin() + static_cast<std::ptrdiff_t>(n));
  for (size_t i = 0; i < k; ++i) out[i] = fit[i].second;
  return true;
}

}  // namespace slicelab
