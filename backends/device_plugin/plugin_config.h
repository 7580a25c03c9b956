// The node plugin's one config file: the NVIDIA device plugin's own format (version v1, flags,
// sharing.timeSlicing / sharing.mps), read by the one reader of that format
// (workloads/inputs/device_plugin_config.h), plus a `slicelab:` section (interposer shares, CDI,
// paths).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace slicelab::device_plugin {

enum class ShareMode { kWhole, kTimeSlice, kMps, kInterposer };
enum class MigStrategy { kNone, kSingle, kMixed };  // flags.migStrategy
// flags.plugin.deviceListStrategy: how Allocate names the devices to the runtime.
enum class DeviceListStrategy { kEnvvar, kVolumeMounts, kCdiAnnotations, kCdiCri };

// sharing.timeSlicing.resources[] / sharing.mps.resources[]
struct ReplicatedResource {
  std::string name = "nvidia.com/gpu";
  std::string rename;  // "" unless renamed (renameByDefault gives "<name>.shared")
  int replicas = 1;
  std::vector<std::string> devices;  // "all" when empty; else indices or UUIDs
};

// slicelab.interposer: HAMi-style capped shares of whole GPUs.
struct InterposerShareConfig {
  std::string resource = "nvidia.com/gpu";
  int split_count = 10;  // virtual devices per GPU (HAMi's deviceSplitCount)
  // The interposer library on the host, and where the container sees it.
  std::string host_library = "/usr/local/lib/slicelab/libslicelab-interposer.so";
  std::string container_library = "/usr/local/lib/slicelab/libslicelab-interposer.so";
  // The host folder where the plugin writes the ld.so.preload file it mounts at /etc/ld.so.preload.
  std::string host_preload_dir = "/var/lib/slicelab/device-plugin";
  // Per-container region folders are made under this host folder and mounted at
  // container_region_dir; the region file inside is named in SLICELAB_SHARED_REGION and
  // CUDA_DEVICE_MEMORY_SHARED_CACHE.
  std::string host_region_root = "/var/lib/slicelab/regions";
  std::string container_region_dir = "/var/run/slicelab";
  bool preload_via_mount = true;  // mount ld.so.preload (true) or set LD_PRELOAD (false)
};

struct NodePluginConfig {
  std::string source;  // the file as given
  ShareMode mode = ShareMode::kWhole;
  MigStrategy mig = MigStrategy::kNone;
  std::vector<DeviceListStrategy> list_strategies{DeviceListStrategy::kEnvvar};
  bool pass_device_specs = false;
  bool device_id_index = false;  // flags.plugin.deviceIDStrategy: index (false: uuid)
  // sharing.timeSlicing / sharing.mps
  bool rename_by_default = false;
  bool fail_requests_greater_than_one = false;
  std::vector<ReplicatedResource> replicated;
  // MPS: the host root under which each resource's daemon has its pipe and log folders
  // (<root>/<resource>/pipe, .../log); mounted at the same path in containers.
  std::string mps_root = "/run/slicelab/mps";
  std::string mps_control;  // nvidia-cuda-mps-control; "" = $SLICELAB_MPS_CONTROL or PATH
  InterposerShareConfig interposer;
  // CDI: the kind of every device name ("slicelab.io/gpu=GPU-…") and the annotation prefix
  // used by the cdi-annotations strategy.
  std::string cdi_kind = "slicelab.io/gpu";
  std::string cdi_annotation_prefix = "cdi.k8s.io/";
  std::string nvml_library;   // "" = $SLICELAB_NVML_LIBRARY or libnvidia-ml.so.1
  std::string topology_file;  // `nvidia-smi topo -m` output for GetPreferredAllocation
  std::string plugin_dir = "/var/lib/kubelet/device-plugins";
  std::string node_name;              // "" = $NODE_NAME
  std::vector<std::string> warnings;  // keys read but with no effect here, for people
};

// Reads the file (YAML; a ConfigMap holding one config under data: is accepted) and translates it
// into what the plugin advertises and serves. Unknown keys get a did-you-mean, errors name
// file:line:column; throws InputError. A file the simulator's policies read too is accepted or
// refused alike, with the same messages (tests/device_plugin/config_readers_agree_test.cc).
NodePluginConfig read_node_plugin_config(std::string_view path);
NodePluginConfig parse_node_plugin_config(std::string_view text, std::string_view source);

}  // namespace slicelab::device_plugin
