// What a policy took from the NVIDIA device plugin's own config file (sharing.timeSlicing or
// sharing.mps): the parts that change what a pod sees, beyond the mode and its replicas.
#pragma once

#include <string>

namespace slicelab {

struct DevicePluginSettings {
  std::string source;      // the config file as the scenario names it, or "inline"
  std::string resource;    // the shared resource: nvidia.com/gpu
  std::string advertised;  // what nodes advertise: nvidia.com/gpu.shared under renameByDefault
  std::string strategy;    // the plugin's own name: "timeSlicing" or "mps" ("" for none)
  int replicas = 0;        // per GPU; 0 when the config shares nothing
  // The plugin fails Allocate for a pod asking for more than one shared GPU (on by default for
  // mps, off for timeSlicing, as the plugin's config.go sets them).
  bool fail_requests_greater_than_one = false;
};

}  // namespace slicelab
