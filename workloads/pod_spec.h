// What one pod asks for and how long it runs: the unit every trace, generator and policy speaks.
// Plain value type; validated by the readers that build it, trusted by the engine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slicelab {

struct PodSpec {
  std::string name;
  double arrival_s = 0.0;
  // Solo run time on a whole GPU (see docs/scenario-format.md for speed scaling).
  double duration_s = 0.0;
  int gpu_count = 0;           // 0 = CPU-only pod
  int gpu_milli = 1000;        // share of each GPU, 1..1000; only below 1000 for one-GPU pods
  int64_t gpu_memory_mib = 0;  // peak device memory per GPU
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int priority = 0;                         // higher is scheduled first
  std::vector<std::string> allowed_models;  // empty = any GPU model
  std::string workload_class;
  // MIG: the GPU-instance profile asked for ("1g.10gb"); empty = derived from gpu_milli and
  // gpu_memory_mib by a MIG policy. Ignored by the other sharing modes.
  std::string mig_profile;
  std::optional<double> slo_max_queue_s;
  std::optional<double> slo_max_jct_s;

  bool has_slo() const { return slo_max_queue_s.has_value() || slo_max_jct_s.has_value(); }
};

}  // namespace slicelab
