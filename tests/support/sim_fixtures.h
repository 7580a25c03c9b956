// Small builders for the simulator's unit tests: hand-built clusters, pods and one-call runs,
// so that each test's scenario stays small enough to compute its expected values by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/cluster_state.h"
#include "sim/engine/engine.h"
#include "sim/gpu_catalog.h"
#include "sim/metrics/run_result.h"
#include "sim/modes/mode_registry.h"
#include "sim/modes/time_slice/time_slice_settings.h"
#include "sim/placement/placement_config.h"
#include "workloads/pod_spec.h"
#include "workloads/rng.h"

namespace slicelab::testing {

inline const GpuCatalog& catalog() {
  static const GpuCatalog c = GpuCatalog::builtin();
  return c;
}

inline size_t model_index(std::string_view name) {
  const auto idx = catalog().index_of(name);
  EXPECT_TRUE(idx.has_value()) << name;
  return idx.value_or(0);
}

inline int64_t model_memory(std::string_view name) {
  return catalog().models()[model_index(name)].memory_mib;
}

// `count` identical nodes named "<name>-<i>".
inline NodeGroup node_group(std::string name, int count, std::string_view model, int gpus,
                            int64_t cpu_milli = 32000, int64_t memory_mib = 262144) {
  NodeGroup g;
  g.name = std::move(name);
  g.count = count;
  g.gpu_model = model_index(model);
  g.gpus_per_node = gpus;
  g.cpu_milli = cpu_milli;
  g.memory_mib = memory_mib;
  return g;
}

inline ClusterSpec cluster_of(std::vector<NodeGroup> groups) {
  ClusterSpec c;
  c.groups = std::move(groups);
  return c;
}

// One node with one A100-80GB: the smallest cluster where tenants share a GPU.
inline ClusterSpec one_gpu() {
  return cluster_of({node_group("n", 1, "A100-80GB", 1)});
}

// A pod with chained setters: pod("a", 0, 100).gpus(2).mem(1024).
struct PodBuilder {
  PodSpec spec;

  PodBuilder& gpus(int n) {
    spec.gpu_count = n;
    return *this;
  }
  PodBuilder& milli(int m) {
    spec.gpu_milli = m;
    return *this;
  }
  PodBuilder& gpu_mem(int64_t mib) {
    spec.gpu_memory_mib = mib;
    return *this;
  }
  PodBuilder& cpu(int64_t milli_cpu) {
    spec.cpu_milli = milli_cpu;
    return *this;
  }
  PodBuilder& mem(int64_t mib) {
    spec.memory_mib = mib;
    return *this;
  }
  PodBuilder& priority(int p) {
    spec.priority = p;
    return *this;
  }
  PodBuilder& models(std::vector<std::string> names) {
    spec.allowed_models = std::move(names);
    return *this;
  }
  PodBuilder& slo_queue(double s) {
    spec.set_slo(s, spec.slo_max_jct_s());
    return *this;
  }
  PodBuilder& slo_jct(double s) {
    spec.set_slo(spec.slo_max_queue_s(), s);
    return *this;
  }
  operator PodSpec() const { return spec; }  // NOLINT(google-explicit-constructor)
};

// One whole GPU by default; no CPU or memory unless asked.
inline PodBuilder pod(std::string name, double arrival_s, double duration_s) {
  PodBuilder b;
  b.spec.name = std::move(name);
  b.spec.arrival_s = arrival_s;
  b.spec.duration_s = duration_s;
  b.spec.gpu_count = 1;
  return b;
}

inline SharingConfig whole_card() {
  SharingConfig c;
  c.kind = "whole-card";
  return c;
}
inline SharingConfig gpu_share() {
  SharingConfig c;
  c.kind = "gpu-share";
  return c;
}
inline SharingConfig time_slice(int replicas, double overhead) {
  SharingConfig c;
  c.kind = "time-slice";
  c.set_mode_settings(std::make_shared<TimeSliceSettings>(TimeSliceSettings{replicas, overhead}));
  return c;
}

inline EngineConfig quiet_config() {
  EngineConfig c;
  c.sample_interval_s = 0;  // no samples unless a test asks for them
  return c;
}

inline RunResult run(const ClusterSpec& cluster, const std::vector<PodSpec>& pods,
                     std::string_view preset = "first-fit",
                     const SharingConfig& sharing = whole_card(),
                     const EngineConfig& config = quiet_config(), uint64_t seed = 1) {
  auto placement_config = placement_preset(preset);
  EXPECT_TRUE(placement_config.has_value()) << preset;
  PlacementPolicy placement = build_placement(*placement_config);
  const auto mode = make_sharing_mode(sharing);
  const RunInputs in{cluster, catalog(), std::span<const PodSpec>(pods), *mode, config, seed};
  return run_simulation(in, placement);
}

// The GPU indices (within its node) that pod i ran on.
inline std::vector<int> gpus_of(const RunResult& r, size_t i) {
  std::vector<int> out;
  for (uint32_t k = r.pods[i].gpu_begin; k < r.pods[i].gpu_end(); ++k) out.push_back(r.pod_gpus[k]);
  return out;
}

// A request as the engine pre-computes it for whole-card (claim 1 of 1 unit per GPU).
// One scheduling cycle of `policy` for `req` on `state` (pod index 0, time 0): the node chosen
// and, in out[0, req.gpu_count), its GPUs.
inline std::optional<NodeId> place_pod(PlacementPolicy& policy, const ClusterState& state,
                                       PodRequest req, Rng& rng, std::span<GpuId> out) {
  SchedulingCycle cycle{state, req, 0, 0.0, rng};
  return policy.schedule(cycle, out);
}

inline PodRequest request(int gpu_count, int64_t cpu_milli = 0, int64_t memory_mib = 0,
                          int64_t gpu_memory_mib = 0, int claim_units = 1) {
  PodRequest r;
  r.gpu_count = gpu_count;
  r.cpu_milli = cpu_milli;
  r.memory_mib = memory_mib;
  r.gpu_memory_mib = gpu_memory_mib;
  r.claim_units = gpu_count > 0 ? claim_units : 0;
  return r;
}

}  // namespace slicelab::testing
