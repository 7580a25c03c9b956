// One resource a node's device plugin serves (nvidia.com/gpu, nvidia.com/gpu.shared, a MIG
// profile): the seam between the kubelet's gRPC API (plugin_server) and the sharing mechanisms.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace slicelab::device_plugin {

// A device as the kubelet sees it: an opaque ID ("GPU-…", "GPU-…::3", "MIG-…") and its health.
struct AdvertisedDevice {
  std::string id;
  bool healthy = true;
  int numa_node = -1;  // -1: unknown (no topology hint is sent)
};

// A host path bound into the container (a file or a folder).
struct Mount {
  std::string container_path;
  std::string host_path;
  bool read_only = true;
};

// A device node made available in the container (/dev/nvidia0, /dev/nvidiactl, ...).
struct DeviceNode {
  std::string container_path;
  std::string host_path;
  std::string permissions = "rw";
};

// What one container gets for the devices it was given: the kubelet's ContainerAllocateResponse
// and, per device, a CDI spec's containerEdits. `cdi_devices` holds fully qualified CDI names
// ("slicelab.io/gpu=GPU-…"); when the plugin is configured for CDI, the runtime applies the
// spec's edits for those names and `envs`/`mounts` carry only what is not in the spec.
struct ContainerAllocation {
  std::map<std::string, std::string> envs;
  std::vector<Mount> mounts;
  std::vector<DeviceNode> devices;
  std::map<std::string, std::string> annotations;
  std::vector<std::string> cdi_devices;
};

// A request the plugin refuses (unknown device ID, more devices than allowed, no pod found for
// a share): the gRPC server answers it with a status carrying this message, never a crash.
class AllocationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One device of a CDI spec: its name within the spec's kind ("GPU-…", "GPU-…::3", "MIG-…")
// and the edits a runtime applies for it that do not depend on the pod (a share's caps do, and
// come from Allocate).
struct CdiDeviceEdits {
  std::string name;
  ContainerAllocation edits;
};

struct PreferredRequest {
  std::vector<std::string> available;     // IDs the kubelet may give
  std::vector<std::string> must_include;  // IDs it has already chosen
  int size = 0;                           // how many it wants
};

class ResourcePlugin {
 public:
  virtual ~ResourcePlugin() = default;
  // The extended resource name the kubelet advertises: "nvidia.com/gpu".
  virtual std::string resource_name() const = 0;
  // The devices now, with their health (read from the shared DeviceHealth on every call).
  virtual std::vector<AdvertisedDevice> devices() const = 0;
  // GetPreferredAllocation: `size` IDs from `available` including `must_include`, best first.
  virtual std::vector<std::string> preferred(const PreferredRequest& request) const = 0;
  // Allocate for one container. Throws AllocationError for a request it must refuse.
  virtual ContainerAllocation allocate(std::span<const std::string> device_ids) = 0;
  // Every advertised device as a CDI device (`slicelab cdi generate`); the same IDs as
  // devices() so that the plugin and the spec name the same devices.
  virtual std::vector<CdiDeviceEdits> cdi_devices() const = 0;
  // PreStartContainer: nothing to do by default (the kubelet is told not to call it).
  virtual bool wants_pre_start() const { return false; }
  virtual void pre_start(std::span<const std::string> /*device_ids*/) {}
};

}  // namespace slicelab::device_plugin
