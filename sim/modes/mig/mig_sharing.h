// MIG as a sharing mode: each pod runs alone in a GPU instance, at the instance's share of the
// GPU's SMs, with isolated memory and no interference from the other instances.
#pragma once

#include <memory>

#include "sim/modes/mig/mig_settings.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class MigSharing final : public SharingMode {
 public:
  // Capacity units per GPU: 28 is a multiple of both 7 (A100/H100/H200) and 4 (A30) compute
  // slices, so one slice is 4 or 7 units and allocation ratios stay exact.
  static constexpr int kUnitsPerGpu = 28;
  // Tenants of one GPU: one per GPU instance, and a GPU has at most 7 compute slices.
  static constexpr int kMaxInstancesPerGpu = 7;

  explicit MigSharing(std::shared_ptr<const MigSettings> settings)
      : settings_(std::move(settings)) {}

  std::string_view kind() const override { return "mig"; }
  std::string describe() const override;
  int capacity_units() const override { return kUnitsPerGpu; }
  // A lower bound (one unit) until the engine knows the instance: the unit-based filters then
  // never reject a node that MIG could serve; its Reserve plugin rewrites the real claim.
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return kMaxInstancesPerGpu; }
  bool isolates_memory() const override { return true; }
  // Bound: sm_cap_i, the instance's share of the GPU's SMs, so rate_i = min(1, sm_cap_i /
  // sm_demand_i). Instances share no SM time (the capacity is not counted); nothing promised.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  // The run's instances and the placement plugin that takes them (sim/modes/mig/mig_run.h).
  std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const override;

  const MigSettings& settings() const { return *settings_; }

 private:
  std::shared_ptr<const MigSettings> settings_;
};

}  // namespace slicelab
