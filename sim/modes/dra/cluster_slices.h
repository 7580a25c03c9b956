// The ResourceSlices NVIDIA's DRA driver (gpu.nvidia.com) would publish for a simulated
// cluster: per node one pool, GPUs with NVIDIA's attributes and capacities, and on MIG-capable
// GPUs every MIG placement as a device that consumes its GPU's shared counters.
#pragma once

#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "workloads/dra_model.h"

namespace slicelab {

struct ClusterSliceOptions {
  // Publish MIG partitions (dynamic MIG, as the driver's DynamicMIG feature gate does) next to
  // each MIG-capable GPU; without them every GPU is a plain device.
  bool mig_partitions = true;
  // Publish each GPU with allowMultipleAllocations and a consumable `memory` capacity (KEP-5075,
  // beta in 1.36): several claims share a GPU while their memory requests fit, each request
  // rounded up to `memory_step_mib` (requestPolicy validRange min = step, default = step).
  // Excludes MIG partitions (a shared GPU is not partitioned) and the `multiprocessors`
  // capacity (a claim would consume all of a capacity it does not request).
  bool consumable_memory = false;
  int64_t memory_step_mib = 1024;
  // The driverVersion attribute: a simulated cluster has no driver to ask.
  std::string driver_version = "580.65.6";
};

// The slices in node order; on a node with MIG-capable GPUs, first a slice holding the shared
// counter sets and then one holding the devices (the shape the driver uses on Kubernetes
// 1.35+), else one slice. Deterministic: UUIDs are derived from the node name and GPU index.
std::vector<DraResourceSlice> cluster_resource_slices(const ClusterSpec& cluster,
                                                      const GpuCatalog& catalog,
                                                      const ClusterSliceOptions& options = {});

// NVIDIA's product name, architecture and CUDA compute capability for a catalog model
// ("H100-80GB" -> "NVIDIA H100 80GB HBM3", "Hopper", "9.0.0"); unknown models get
// "NVIDIA <model>", "unknown", "0.0.0".
struct NvidiaProduct {
  std::string product_name, architecture, compute_capability;
};
NvidiaProduct nvidia_product(const std::string& catalog_model);

}  // namespace slicelab
