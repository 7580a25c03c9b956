// Isolation fidelity: N co-located clients on one GPU under each mechanism, each running one
// kernel for a fixed time; the share each achieved (its throughput over the kernel's solo
// throughput) against the share it was configured, and whether a client allocating past its
// memory cap gets out-of-memory while its neighbours run on.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "backends/local/gpu_detection.h"
#include "backends/local/isolation.h"
#include "kernel_harness/kernel_process.h"

namespace slicelab {

struct IsolationOptions {
  std::string kernel = "fma";
  double scale = 1;  // slicelab-kernel --scale (fma only): each unit F times the catalog's work
  std::vector<double> shares{0.3, 0.7};  // one client per share; fractions of the GPU
  double duration_s = 5;
  std::vector<Mechanism> mechanisms{Mechanism::kInterposer, Mechanism::kMps, Mechanism::kTimeSlice,
                                    Mechanism::kMig};
  bool memory_test = true;
};

// A mechanism that cannot run here (no MPS control program, no MIG instances) is reported
// with "skipped" and its reason; a client that fails is reported with its error.
nlohmann::ordered_json measure_isolation(const HarnessTools& tools, const IsolationOptions& options,
                                         const DetectedGpu& gpu);

}  // namespace slicelab
