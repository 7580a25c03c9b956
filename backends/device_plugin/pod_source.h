// Finds the pod an Allocate call is for: the kubelet's request names only device IDs, so an
// interposer share's caps come from the pod (the extender's annotation, else its requests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "backends/k8s/gpu_assignment.h"

namespace slicelab::device_plugin {

struct PendingPod {
  std::string namespace_name, name, uid;
  std::optional<k8s::GpuAssignment> assignment;  // slicelab.io/gpu-assignment, when present
  int64_t memory_mib = 0;  // from the container's limits (nvidia.com/gpumem…), 0: none
  int memory_percent = 0;  // nvidia.com/gpumem-percentage (of each GPU), when no gpumem; 0: none
  int cores = 0;           // nvidia.com/gpucores, 0: none
  int gpus = 0;            // the number of GPUs the container asks for
};

class PodSource {
 public:
  virtual ~PodSource() = default;
  // The oldest pod bound to this node, not yet allocated, that asks for `device_count` devices
  // of `resource`; nullopt when there is none.
  virtual std::optional<PendingPod> pending_pod(std::string_view resource, int device_count) = 0;
  // Records that the pod got its devices (so that the next Allocate finds the next pod).
  virtual void mark_allocated(const PendingPod& pod) = 0;
};

}  // namespace slicelab::device_plugin
