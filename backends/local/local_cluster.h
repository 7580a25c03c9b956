// The cluster a local run places pods on: one node holding this machine's GPUs (or, under MIG,
// its existing MIG instances, one schedulable "GPU" each), as the simulator's ClusterSpec.
#pragma once

#include <string>
#include <vector>

#include "backends/local/gpu_detection.h"
#include "backends/local/isolation.h"
#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"

namespace slicelab {

struct LocalCluster {
  ClusterSpec spec;
  GpuCatalog catalog;
  // Per schedulable GPU (the node's local GPU index): its CUDA_VISIBLE_DEVICES entry.
  std::vector<std::string> device_ids;
};

// `base` is the scenario's catalog (kept so reports name known models). Throws when there is
// nothing to schedule on: no GPUs, GPUs of different models, or MIG without instances.
LocalCluster make_local_cluster(const std::vector<DetectedGpu>& gpus, Mechanism mechanism,
                                const GpuCatalog& base, bool allow_mig_reconfigure);

}  // namespace slicelab
