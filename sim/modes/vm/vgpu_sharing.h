// NVIDIA vGPU (time-sliced, C-series) as a sharing mode: each GPU pod is a VM with one vGPU per
// GPU of a fixed profile type, its own frame buffer, and a share of GPU time set by the
// scheduler (best effort, equal share or fixed share); docs/vm-sharing.md states the model.
#pragma once

#include <memory>

#include "sim/modes/vm/vgpu_profiles.h"
#include "sim/modes/vm/vm_settings.h"
#include "sim/sharing/interference_model.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class VgpuSharing final : public SharingMode {
 public:
  // interference: this mode's coefficients from the calibration (zero: none; vGPUs take turns,
  // so by default neighbours slow each other only through the time they take).
  explicit VgpuSharing(std::shared_ptr<const VmSettings> settings,
                       InterferenceCoefficients interference = {})
      : settings_(std::move(settings)), interference_(interference) {}

  std::string_view kind() const override { return "vgpu"; }
  std::string describe() const override;
  // kVgpuUnitsPerGpu per GPU; a vGPU claims 120 / max_per_gpu of them once its Reserve plugin
  // knows its type (sim/modes/vm/vgpu_run.h). Until then one unit, as MIG does.
  int capacity_units() const override { return kVgpuUnitsPerGpu; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return kMaxVgpusPerGpu; }
  bool isolates_memory() const override { return true; }
  // With e = T / (T + switch cost) while vGPUs take turns (n > 1, and for best effort only
  // while their summed demand exceeds the GPU), e = 1 otherwise:
  //   best effort: capacity e, max-min fair, no bound but demand, nothing promised;
  //   equal share: bound e / n, promised min(e / n, demand);
  //   fixed share: bound e x cap_i (cap_i = 1 / max_per_gpu of its type), promised likewise.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const override;

  const VmSettings& settings() const { return *settings_; }

 private:
  std::shared_ptr<const VmSettings> settings_;
  InterferenceCoefficients interference_;
};

}  // namespace slicelab
