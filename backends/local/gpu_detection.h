// Finds this machine's GPUs through NVML, opened with dlopen at run time so that slicelab runs
// (and says why there is nothing to use) on machines without a GPU or a driver.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slicelab {

struct MigInstance {
  std::string uuid;     // "MIG-..." : what CUDA_VISIBLE_DEVICES takes
  std::string profile;  // "1g.10gb", from NVML's name for the instance; "" when it has none
  uint64_t memory_bytes = 0;
};

struct DetectedGpu {
  unsigned index = 0;  // NVML index = CUDA ordinal with CUDA_DEVICE_ORDER=PCI_BUS_ID
  std::string name;
  std::string uuid;
  uint64_t memory_bytes = 0;
  bool mig_enabled = false;
  std::vector<MigInstance> mig_instances;
};

struct GpuDetection {
  std::vector<DetectedGpu> gpus;
  std::string library;  // the NVML library that was opened (or tried)
  std::string problem;  // empty when at least one GPU was found; otherwise why not, for people
  bool ok() const { return problem.empty(); }
};

// The library path: `override_path` if not empty, else $SLICELAB_NVML_LIBRARY, else
// "libnvidia-ml.so.1". Never throws: a missing library or driver is reported in `problem`.
GpuDetection detect_gpus(const std::string& override_path = {});

}  // namespace slicelab
