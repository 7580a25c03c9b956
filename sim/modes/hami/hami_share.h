// HAMi (Project-HAMi) as a sharing mode: vGPUs with a slot count per GPU, per-pod memory limits
// and compute caps enforced by HAMi-core, memory overcommit by deviceMemoryScaling
// (docs/hami.md). Its scheduler's filter and scores live in HamiRun and
// sim/modes/hami/hami_plugins.
#pragma once

#include <memory>

#include "sim/modes/hami/hami_settings.h"
#include "sim/sharing/interference_model.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class HamiShare final : public SharingMode {
 public:
  explicit HamiShare(std::shared_ptr<const HamiSettings> settings,
                     InterferenceCoefficients interference = {});

  std::string_view kind() const override { return "hami"; }
  std::string describe() const override;
  // Capacity units are HAMi's cores: Totalcore = 100 x deviceCoreScaling per GPU.
  int capacity_units() const override { return total_cores_; }
  // gpucores = gpu_milli / 10 (a gpu_milli of 300 is gpucores 30; below 10 it is 0: no cap).
  int claim_units(int gpu_milli) const override { return cores_of(gpu_milli); }
  int max_tenants() const override { return settings_->device_split_count; }
  // HAMi-core holds each tenant to its own limit, so no neighbour takes a tenant's memory; what
  // overcommit (deviceMemoryScaling > 1) costs is checked by HamiRun::overcommit.
  bool isolates_memory() const override { return true; }
  // Each tenant capped at its gpucores (HAMi-core's CUDA_DEVICE_SM_LIMIT; 0 = no cap) and
  // promised min(cap, demand); the GPU's time is 1 (deviceCoreScaling > 1 oversubscribes it).
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  // HAMi-core's CUDA_DEVICE_MEMORY_LIMIT: the request (a percentage resolved on its GPU).
  int64_t memory_limit_mib(int64_t request_mib, int64_t /*gpu_memory_mib*/) const override {
    return request_mib;
  }
  std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const override;

  static int cores_of(int gpu_milli) { return gpu_milli >= 1000 ? 100 : gpu_milli / 10; }
  const HamiSettings& settings() const { return *settings_; }

 private:
  std::shared_ptr<const HamiSettings> settings_;
  InterferenceCoefficients interference_;
  int total_cores_;
};

}  // namespace slicelab
