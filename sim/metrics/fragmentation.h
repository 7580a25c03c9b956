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
  int gpu_count = 1;  // 0: a CPU-only shape (gpu_milli 0)
  int gpu_milli = 1000;
  uint64_t model_mask = ~uint64_t{0};
  double freq = 0;  // share of the target workload, the shapes' freqs sum to 1
};

// The popular pod shapes of a workload, as the paper's simulator picks them (pkg/utils/frag.go
// GetTypicalPods with isInvolvedCpuPods): shapes (CPU, GPU share, GPU count, GPU type string:
// the allowed models as the trace wrote them, ModelList::written, repeats included, else the
// list joined with '|') counted over ALL pods, CPU-only ones included; ordered
// by count, most first, equal counts by the larger shape first (CPU, then share, count, type
// string); kept from the top while the pods covered so far are below `coverage` of all pods
// (the shape that crosses it is kept); frequencies renormalised over the shapes kept.
struct TargetWorkload {
  std::vector<TargetShape> shapes;
  static TargetWorkload from_pods(std::span<const PodSpec> pods, const GpuCatalog& catalog,
                                  double coverage = 0.95);
};

// Fragment of one node for the target workload, in milli-GPUs (the paper's
// NodeGpuShareFragAmount summed except q3_satisfied): for each shape, the node's free GPU milli
// that the shape cannot use, weighted by the shape's frequency. A CPU-only shape cannot use any
// of it (whether its CPU fits or not). A GPU shape: all of it when it cannot fit (wrong model,
// too little CPU, too few GPUs with room); when it fits, the free milli of the GPUs too small
// for it.
double node_fragmentation(const TargetWorkload& target, int64_t cpu_free, uint16_t model,
                          std::span<const int> gpu_free_milli);

}  // namespace slicelab
