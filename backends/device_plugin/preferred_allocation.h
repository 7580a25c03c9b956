// GetPreferredAllocation's choices: whole GPUs by the simulator's topology device picker (the
// best-connected free set, as NVIDIA's best-effort allocator), replicas by NVIDIA's
// "distributed" policy (the least-used GPUs first), anything else in the resource's order.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/device_plugin/resource_devices.h"
#include "backends/device_plugin/resource_plugin.h"
#include "sim/topology/gpu_topology.h"

namespace slicelab::device_plugin {

// Each returns must_include first (those of its IDs that are available and among `devices`,
// each once), then more IDs from `available` up to request.size. IDs not among `devices` are
// ignored; AllocationError when too few are left.

// `node_gpus`: the node's GPU count (local GPU i = NVML index i); `topology` may be null or
// of another size (the picker then packs by index).
std::vector<std::string> preferred_on_topology(std::span<const ResourceDevice> devices,
                                               const PreferredRequest& request,
                                               const std::shared_ptr<const GpuTopology>& topology,
                                               int node_gpus);
std::vector<std::string> preferred_replicas(std::span<const ResourceDevice> devices,
                                            const PreferredRequest& request);
std::vector<std::string> preferred_in_order(std::span<const ResourceDevice> devices,
                                            const PreferredRequest& request);

}  // namespace slicelab::device_plugin
