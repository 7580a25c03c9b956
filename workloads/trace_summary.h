// What an importer read, in the terms a user checks against the trace's own documentation:
// pod counts by GPU shape, total GPU demand, and nodes and GPUs by model.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "workloads/pod_spec.h"

namespace slicelab {

struct TraceSummary {
  size_t pods = 0;
  size_t cpu_only = 0;                      // gpu_count 0
  size_t one_gpu = 0;                       // gpu_count 1, whole or fractional
  size_t fractional = 0;                    // one-GPU pods with gpu_milli below 1000
  size_t multi_gpu = 0;                     // gpu_count above 1
  std::map<int, size_t> pods_by_gpu_count;  // multi-GPU detail: 2 -> 16, 4 -> 15, ...
  int64_t gpu_demand_milli = 0;             // sum of gpu_count x gpu_milli over GPU pods

  size_t nodes = 0;
  size_t gpu_nodes = 0;
  size_t gpus = 0;
  std::map<std::string, size_t> gpus_by_model;

  double gpu_demand() const { return static_cast<double>(gpu_demand_milli) / 1000.0; }
  void add_pods(std::span<const PodSpec> list);
  void add_nodes(size_t count, int gpus_per_node, const std::string& model);
  // Two lines: "pods: ..." (when there are pods) and "nodes: ..." (when there are nodes).
  std::string text() const;
};

}  // namespace slicelab
