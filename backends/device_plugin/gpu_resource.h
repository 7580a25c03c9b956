// One resource of whole GPUs, MIG instances or their time-slice / MPS replicas, as NVIDIA's
// device plugin serves it: health from DeviceHealth, Allocate's device list by the configured
// strategies (envvar, volume-mounts, CDI), MPS's daemon and folders for MPS replicas.
#pragma once

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/mps_share.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/resource_devices.h"
#include "backends/device_plugin/resource_plugin.h"
#include "sim/topology/gpu_topology.h"

namespace slicelab::device_plugin {

class GpuResource final : public ResourcePlugin {
 public:
  // `mps` for an MPS-shared resource (null otherwise); `topology` and `node_gpus` for
  // preferred() on whole GPUs. `config` and `health` must outlive the resource.
  GpuResource(DeviceGroup group, const NodePluginConfig& config, const DeviceHealth& health,
              std::unique_ptr<MpsShare> mps, std::shared_ptr<const GpuTopology> topology,
              int node_gpus);

  std::string resource_name() const override { return group_.resource; }
  std::vector<AdvertisedDevice> devices() const override;
  std::vector<std::string> preferred(const PreferredRequest& request) const override;
  ContainerAllocation allocate(std::span<const std::string> device_ids) override;
  std::vector<CdiDeviceEdits> cdi_devices() const override;

  const MpsShare* mps() const { return mps_.get(); }

 private:
  const ResourceDevice& device(const std::string& id) const;  // AllocationError if unknown
  // The device nodes of these GPUs (/dev/nvidia<N>) and the driver's control nodes.
  std::vector<DeviceNode> device_nodes(std::span<const ResourceDevice* const> devices) const;

  DeviceGroup group_;
  const NodePluginConfig& config_;
  const DeviceHealth& health_;
  std::unique_ptr<MpsShare> mps_;
  std::shared_ptr<const GpuTopology> topology_;
  int node_gpus_;
  std::atomic<uint64_t> allocations_{0};  // names each CDI annotation of this resource
};

}  // namespace slicelab::device_plugin
