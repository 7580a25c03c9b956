// What a policy's `sharing: {mode: hami, ...}` says: HAMi's per-node device-plugin settings
// (deviceSplitCount, deviceMemoryScaling, deviceCoreScaling) and its scheduler's policies.
#pragma once

#include <optional>
#include <string_view>

namespace slicelab {

// HAMi's node and GPU scheduler policies (its util.NodeSchedulerPolicy / GPUSchedulerPolicy).
enum class HamiPolicy { kBinpack, kSpread };

std::string_view hami_policy_name(HamiPolicy p);                      // "binpack" | "spread"
std::optional<HamiPolicy> hami_policy_from_name(std::string_view n);  // nullopt if unknown

struct HamiSettings {
  // HAMi's chart defaults (charts/hami/values.yaml: devicePlugin.deviceSplitCount 10,
  // deviceMemoryScaling 1, deviceCoreScaling 1).
  static constexpr int kDefaultSplitCount = 10;
  static constexpr double kMaxMemoryScaling = 10.0;
  static constexpr double kMaxCoreScaling = 10.0;
  int device_split_count = kDefaultSplitCount;  // tenants per GPU, 1..kMaxTenantsPerGpu
  double device_memory_scaling = 1.0;           // registered memory = physical x this, (0, 10]
  double device_core_scaling = 1.0;             // registered cores = 100 x this, (0, 10]
  // The scheduler's defaults (cmd/scheduler/main.go: --node-scheduler-policy binpack,
  // --gpu-scheduler-policy spread); the placement presets hami-binpack / hami-spread override
  // them for a policy.
  HamiPolicy node_policy = HamiPolicy::kBinpack;
  HamiPolicy gpu_policy = HamiPolicy::kSpread;
};

}  // namespace slicelab
