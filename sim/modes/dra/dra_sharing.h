// DRA as a sharing mode: the structured allocator decides which devices a pod gets, and
// NVIDIA's GpuConfig in the claims' config decides how co-located pods share a GPU.
#pragma once

// One strategy per policy, from the first GpuConfig among the DeviceClasses', claims' and
// templates' config: MPS (thread percentage caps, pinned memory limits, shared faults), else
// time-slicing (a GpuConfig with TimeSlicing, or devices with allowMultipleAllocations, which
// NVIDIA's driver time-slices by default), else each pod alone on its device or MIG partition.

#include <memory>
#include <optional>

#include "sim/modes/dra/dra_settings.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class DraSharing final : public SharingMode {
 public:
  enum class Strategy : uint8_t { kExclusive, kTimeSlicing, kMps };

  DraSharing(std::shared_ptr<const DraSettings> settings, InterferenceCoefficients interference);

  std::string_view kind() const override { return "dra"; }
  std::string describe() const override;
  int capacity_units() const override;
  // A lower bound until Reserve knows the devices (as MIG's): the unit filters then never
  // reject a node the allocator could serve; Reserve rewrites it to the devices' share.
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override;
  bool isolates_memory() const override { return strategy_ == Strategy::kExclusive; }
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  int64_t memory_limit_mib(int64_t request_mib, int64_t gpu_memory_mib) const override;
  double fault_propagation() const override;
  std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const override;

  Strategy strategy() const { return strategy_; }

 private:
  std::shared_ptr<const DraSettings> settings_;
  InterferenceCoefficients interference_;
  Strategy strategy_ = Strategy::kExclusive;
  double overhead_ = 0.05;                   // time-slicing, by the GpuConfig's interval
  std::optional<int64_t> pinned_limit_mib_;  // MPS defaultPinnedDeviceMemoryLimit
};

}  // namespace slicelab
