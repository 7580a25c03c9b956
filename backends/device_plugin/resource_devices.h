// The devices each resource of a node advertises, before any sharing is applied and after:
// whole GPUs, MIG instances (NVIDIA's single and mixed strategies) and their replicas.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "backends/device_plugin/plugin_config.h"
#include "backends/local/gpu_detection.h"

namespace slicelab::device_plugin {

// One device the kubelet may hand out, and what it stands for on the node.
struct ResourceDevice {
  std::string id;          // the kubelet's ID: "GPU-…", "0", "MIG-…", "GPU-…::2"
  std::string base_id;     // the ID without the replica suffix (NVIDIA_VISIBLE_DEVICES entry)
  std::string gpu_uuid;    // the physical GPU
  std::string mig_uuid;    // the MIG instance, "" for a whole GPU
  unsigned gpu_index = 0;  // NVML index, the /dev/nvidia<N> minor
  int mig_slot = -1;       // the instance's position on its GPU ("<gpu>:<slot>")
  int replica = -1;        // >= 0 for a time-slice or MPS replica
  int64_t memory_mib = 0;  // of the GPU or the instance
  // What CUDA_VISIBLE_DEVICES names: the instance's or the GPU's UUID, valid in and out of a
  // container whatever deviceIDStrategy says.
  const std::string& cuda_uuid() const { return mig_uuid.empty() ? gpu_uuid : mig_uuid; }
};

struct DeviceGroup {
  std::string resource;  // "nvidia.com/gpu", "nvidia.com/mig-1g.10gb"
  std::vector<ResourceDevice> devices;
  bool mig = false;
  int replicas = 1;  // > 1 (or a replicated resource's 1) once replicate() made them
  bool replicated = false;
};

// The groups NVIDIA's device plugin advertises for `strategy`: none -> nvidia.com/gpu of whole
// GPUs (MIG-enabled ones too, as the plugin does); single -> nvidia.com/gpu of the MIG
// instances, all of one profile (InputError otherwise), or of whole GPUs when none has MIG;
// mixed -> nvidia.com/gpu for GPUs without MIG and nvidia.com/mig-<profile> per profile.
std::vector<DeviceGroup> device_groups(MigStrategy strategy, std::span<const DetectedGpu> gpus,
                                       bool id_index);

// Applies sharing.timeSlicing / sharing.mps to the groups: every device of a group named by a
// replicated resource (only those GPUs its `devices` lists, when it lists any) becomes
// `replicas` devices "<id>::<n>", advertised under its rename when it has one. A resource that
// this node does not have is skipped (one config serves every node of a DaemonSet); a device
// listed that the node lacks is an InputError.
std::vector<DeviceGroup> replicate(std::vector<DeviceGroup> groups,
                                   std::span<const ReplicatedResource> resources);

}  // namespace slicelab::device_plugin
