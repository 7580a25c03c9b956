// Watches the node's GPUs through NVML (opened with dlopen) and marks them unhealthy in
// DeviceHealth on critical XID errors or when NVML loses them, as NVIDIA's device plugin does.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/xid_filter.h"
#include "backends/local/gpu_detection.h"

namespace slicelab::device_plugin {

struct NvmlHealthOptions {
  std::string library;  // "" = $SLICELAB_NVML_LIBRARY, else libnvidia-ml.so.1
  XidFilter xids;       // which XIDs count (default: all but NVIDIA's application errors)
  bool disabled = false;
  // How long one nvmlEventSetWait_v2 may block, and so how late stop() returns and how often a
  // GPU is polled for being lost. NVIDIA waits 5 s; 1 s keeps the plugin's shutdown prompt.
  std::chrono::milliseconds wait_timeout{1000};
  // Lines for people (what was skipped, what went unhealthy); empty = standard error.
  std::function<void(const std::string&)> log;
};

// The options NVIDIA's plugin reads from its environment: DP_DISABLE_HEALTHCHECKS ("all" or
// "xids" turns health checks off; else extra XIDs to skip) and DP_ENABLE_HEALTHCHECKS.
NvmlHealthOptions nvml_health_options_from_environment();

class NvmlHealthMonitor {
 public:
  // Watches `gpus` (whole GPUs, and their MIG instances by UUID); marks them in `health`, which
  // must outlive the monitor.
  NvmlHealthMonitor(DeviceHealth& health, std::span<const DetectedGpu> gpus,
                    NvmlHealthOptions options = {});
  ~NvmlHealthMonitor();
  NvmlHealthMonitor(const NvmlHealthMonitor&) = delete;
  NvmlHealthMonitor& operator=(const NvmlHealthMonitor&) = delete;

  // Opens NVML, registers every GPU for XID events and starts the watching thread. Returns
  // false when health checks are disabled or NVML cannot be used (problem() says why): the
  // GPUs then stay healthy. Never throws.
  bool start();
  // Ends the thread within about one wait_timeout and closes NVML. Idempotent.
  void stop();
  bool active() const;
  std::string problem() const;

 private:
  struct Watch;
  std::unique_ptr<Watch> watch_;
};

}  // namespace slicelab::device_plugin
