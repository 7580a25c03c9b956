// The MIG figures of one run: re-partitionings under dynamic MIG and what they cost, and the
// capacity stranded in free instances that no waiting or future pod can use (docs/mig.md).
#pragma once

#include <cstddef>

namespace slicelab {

struct MigMetrics {
  size_t reconfigurations = 0;       // GPUs re-partitioned
  double reconfiguration_gpu_s = 0;  // GPU-seconds spent re-partitioning
  // Time-weighted share of the GPU capacity in free MIG instances whose profile no pending or
  // not yet arrived pod takes (compute slices / the GPU's slices, summed, over GPUs x window).
  double stranded_ratio = 0;
};

}  // namespace slicelab
