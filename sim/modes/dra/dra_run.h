// A DRA run behind the engine's sharing seam: the claims' state, the DynamicResources plugin
// that allocates them, per-tenant caps from the devices they got, and the claims for claims.json.
#pragma once

#include <memory>

#include "sim/modes/dra/dra_claim_state.h"
#include "sim/modes/dra/dra_plugins.h"
#include "sim/sharing/sharing_run.h"

namespace slicelab {

class DraRun final : public SharingRun {
 public:
  DraRun(const RunSetup& setup, const DraSettings& settings)
      : state_(std::make_unique<DraClaimState>(settings, setup.cluster, setup.pods)),
        plugin_(*state_) {}

  RunPlugins plugins() override { return {{}, {&plugin_}, {}, {&plugin_}}; }
  std::optional<std::string> never_fits(uint32_t pod) const override {
    return state_->never_fits(pod);
  }
  void release(uint32_t pod, std::span<const GpuId> /*gpus*/) override { state_->release(pod); }
  void apply_sm_caps(GpuId g, std::span<const uint32_t> pods,
                     std::span<TenantLoad> loads) const override {
    for (size_t k = 0; k < pods.size(); ++k) loads[k].sm_cap = state_->sm_cap(pods[k], g);
  }
  int64_t partition_memory_mib(GpuId g, uint32_t pod) const override {
    return state_->partition_memory_mib(pod, g);
  }
  std::string partition_name(GpuId g, uint32_t pod) const override {
    return state_->partition_memory_mib(pod, g) >= 0 ? "DRA partition" : "GPU";
  }
  // Pods with equal requests may hold different claims (their Pod objects name them).
  bool equal_requests_fit_alike() const override { return false; }
  // claims.json's part of this run: every claim allocated, with its status.allocation; none
  // when it allocated no claim.
  void write_results(RunSummary& summary, double /*stranded_gpu_s*/,
                     double /*gpu_s*/) const override;

 private:
  std::unique_ptr<DraClaimState> state_;  // behind a pointer: const queries use its scratch
  DraClaimsPlugin plugin_;
};

}  // namespace slicelab
