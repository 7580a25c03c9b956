// The FGD paper's fragmentation measure: free GPU capacity a node cannot offer to the
// workload's popular pod shapes, weighted by their popularity (docs/fragmentation.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/gpu_catalog.h"
#include "workloads/pod_spec.h"

namespace slicelab {

struct TargetShape {
  int64_t cpu_milli = 0;
  int gpu_count = 1;
  int gpu_milli = 1000;
  uint64_t model_mask = ~uint64_t{0};
  double freq = 0;  // share of the target workload, the shapes' freqs sum to 1
};

// The popular GPU pod shapes (CPU, GPU count, GPU share, allowed models) of a workload: the
// most frequent ones covering `coverage` of its GPU pods, renormalised. CPU-only pods are left
// out: they never use GPUs, so they shift every node's measure alike and change no decision.
struct TargetWorkload {
  std::vector<TargetShape> shapes;
  static TargetWorkload from_pods(std::span<const PodSpec> pods, const GpuCatalog& catalog,
                                  double coverage = 0.95);
};

// Fragment of one node for the target workload, in milli-GPUs: for each shape, the node's
// free GPU milli that the shape cannot use (all of it when the shape cannot fit: wrong model,
// too little CPU, too few GPUs with room; when it fits, the free milli of the GPUs too small
// for it), weighted by the shape's frequency.
double node_fragmentation(const TargetWorkload& target, int64_t cpu_free, uint16_t model,
                          std::span<const int> gpu_free_milli);

}  // namespace slicelab
