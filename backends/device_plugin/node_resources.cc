#include "backends/device_plugin/node_resources.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/device_plugin/gpu_resource.h"
#include "backends/device_plugin/interposer_share_resource.h"
#include "backends/device_plugin/mps_share.h"
#include "backends/device_plugin/resource_devices.h"
#include "sim/topology/builtin_topologies.h"
#include "sim/topology/nvidia_smi_import.h"
#include "workloads/input_error.h"

namespace slicelab::device_plugin {
namespace {

// topologyFile: a built-in layout's name (nvswitch-8, ...) or `nvidia-smi topo -m` output;
// none: preferred() packs by index.
std::shared_ptr<const GpuTopology> node_topology(const NodePluginConfig& config) {
  if (config.topology_file.empty()) return nullptr;
  if (auto builtin = builtin_topology(config.topology_file)) return builtin;
  return load_nvidia_smi_topo(config.topology_file);
}

std::unique_ptr<MpsShare> mps_share(const NodePluginConfig& config, const DeviceGroup& group) {
  if (group.mig)
    throw InputError(
        fmt::format("{}: sharing using MPS is not supported for MIG devices", group.resource));
  std::vector<std::string> uuids;
  std::vector<int64_t> memory;
  for (const ResourceDevice& d : group.devices)
    if (std::find(uuids.begin(), uuids.end(), d.gpu_uuid) == uuids.end()) {
      uuids.push_back(d.gpu_uuid);
      memory.push_back(d.memory_mib);
    }
  return std::make_unique<MpsShare>(config.mps_root, group.resource, config.mps_control,
                                    group.replicas, std::move(uuids), std::move(memory));
}

}  // namespace

std::vector<std::unique_ptr<ResourcePlugin>> make_node_resources(const NodePluginConfig& config,
                                                                 std::span<const DetectedGpu> gpus,
                                                                 const DeviceHealth& health,
                                                                 PodSource* pods) {
  std::vector<std::unique_ptr<ResourcePlugin>> out;
  if (config.mode == ShareMode::kInterposer) {
    if (pods == nullptr)
      throw std::invalid_argument("make_node_resources: interposer shares need a PodSource");
    out.push_back(make_interposer_share_resource(config, gpus, health, *pods));
    return out;
  }
  std::vector<DeviceGroup> groups = device_groups(config.mig, gpus, config.device_id_index);
  if (config.mode == ShareMode::kTimeSlice || config.mode == ShareMode::kMps)
    groups = replicate(std::move(groups), config.replicated);
  const std::shared_ptr<const GpuTopology> topology = node_topology(config);
  const int node_gpus = static_cast<int>(gpus.size());
  for (DeviceGroup& g : groups) {
    if (g.devices.empty()) continue;
    std::unique_ptr<MpsShare> mps;
    if (config.mode == ShareMode::kMps && g.replicated) mps = mps_share(config, g);
    out.push_back(std::make_unique<GpuResource>(std::move(g), config, health, std::move(mps),
                                                topology, node_gpus));
  }
  return out;
}

}  // namespace slicelab::device_plugin
