// The LD_PRELOAD interposer as a sharing mode: hard memory caps (a pod over its cap fails
// alone) and compute caps enforced by the limiter that ships, run on simulated time.
#pragma once

#include <memory>

#include <cstdint>
#include <map>
#include <vector>

#include "sim/modes/interposer/interposer_settings.h"
#include "sim/modes/interposer/simulated_limiter.h"
#include "sim/sharing/interference_model.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class InterposerShare final : public SharingMode {
 public:
  static constexpr int kMaxTenants = 48;
  static constexpr int kMinClaim = (1000 + kMaxTenants - 1) / kMaxTenants;

  struct Config {
    double launch_overhead_ns = 45.0;  // bench/limiter_overhead --paired, LaunchKernel
    double limiter_window_s = 1.0;
    InterferenceCoefficients interference{};
  };
  explicit InterposerShare(Config c);

  std::string_view kind() const override { return "interposer"; }
  std::string describe() const override;
  int capacity_units() const override { return 1000; }
  int claim_units(int gpu_milli) const override {
    return gpu_milli < kMinClaim ? kMinClaim : gpu_milli;
  }
  int max_tenants() const override { return kMaxTenants; }
  // Caps are per pod; summed caps may still exceed the GPU's memory, where a newcomer fails.
  bool isolates_memory() const override { return false; }
  // Bound: a_i, the share of GPU time the simulated limiter achieved for tenant i (the limiter
  // run already shares the device, so the capacity is not counted again); overhead
  // 1 + launch cost x launches_i; promise min(cap_i, sm_i). So rate_i = min(1, a_i / sm_i) /
  // overhead_i / f_i.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  int64_t memory_limit_mib(int64_t request_mib, int64_t /*gpu_memory_mib*/) const override {
    return request_mib;
  }

  // Achieved shares for this tenant set (cached by the set's signature: caps, demands and
  // kernel lengths, in per-mille and ns). Not thread-safe: one mode object per run.
  void achieved_shares(std::span<const TenantLoad> tenants, std::span<double> out) const;
  size_t cached_sets() const { return cache_.size(); }

 private:
  Config cfg_;
  LimiterSimConfig sim_;
  mutable std::map<std::vector<int64_t>, std::vector<double>> cache_;
  mutable std::vector<int64_t> key_;
};

// Kernel length the limiter simulation gives a tenant: its busy time per launch,
// sm / launches-per-ns, or 1 ms when its class states no launch rate.
int64_t kernel_ns_of(const TenantLoad& t);

// The registry's factory (sim/modes/mode_registry.cc).
std::unique_ptr<SharingMode> make_interposer_mode(const SharingConfig& config);

}  // namespace slicelab
