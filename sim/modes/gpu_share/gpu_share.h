// GPU-share accounting as HAMi, Aliyun gpushare and the FGD paper's simulator schedule it: a
// GPU is 1000 milli and a pod takes its gpu_milli of it; compute never oversubscribes.
#pragma once

#include <memory>

#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class GpuShare final : public SharingMode {
 public:
  // At most this many tenants per GPU, so shares below 1000 / kMaxTenants milli are counted
  // as that much (the openb trace's smallest share is 50 milli, 20 per GPU).
  static constexpr int kMaxTenants = kMaxTenantsPerGpu;
  static constexpr int kMinClaim = (1000 + kMaxTenants - 1) / kMaxTenants;

  std::string_view kind() const override { return "gpu-share"; }
  std::string describe() const override { return "gpu-share (1000 milli per GPU)"; }
  int capacity_units() const override { return 1000; }
  int claim_units(int gpu_milli) const override {
    return gpu_milli < kMinClaim ? kMinClaim : gpu_milli;
  }
  int max_tenants() const override { return kMaxTenants; }
  // Shares cap compute, not memory: a newcomer can still run out of memory its neighbours hold.
  bool isolates_memory() const override { return false; }
  // Admission keeps summed shares within the GPU, so the mode models no contention: every
  // tenant runs at its solo speed (the FGD paper's model).
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
};

// The registry's factory (sim/modes/mode_registry.cc).
std::unique_ptr<SharingMode> make_gpu_share_mode(const SharingConfig& config);

}  // namespace slicelab
