// A policy's `sharing: {mode: dra, ...}` settings: the DRA objects read for it, the CEL
// evaluator of their selectors, and how the workload's pods claim devices.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/dra_model.h"

namespace slicelab {

struct DraSettings {
  std::vector<std::string> files;  // the policy's own files, after the top-level dra: files
  std::shared_ptr<const DraModel> model;
  std::shared_ptr<const DraSelectorEvaluator> selectors;
  // A workload pod with no Pod object in the files claims its gpu_count devices of this class
  // (one ResourceClaim per pod, request "gpu"); empty: such pods claim nothing.
  std::string device_class;
  // ... with capacity.requests {memory: <its gpu_memory_mib>Mi}: a share of a device with
  // allowMultipleAllocations, or a lower bound on the memory of any other device (a MIG size).
  bool request_memory = true;
  std::string namespace_name = "default";
  // Time-slicing's cost when tenants oversubscribe a GPU (GpuConfig interval Default; Short
  // doubles it, Long halves it) and MPS's chance that a failing client takes its neighbours.
  double context_switch_overhead = 0.05;
  double fault_propagation = 0.5;
  int64_t max_steps = 200000;  // DraStructuredAllocator::kDefaultMaxSteps
};

}  // namespace slicelab
