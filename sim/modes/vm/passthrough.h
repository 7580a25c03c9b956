// GPU passthrough (VFIO): each GPU pod is a VM given whole GPUs, which it holds alone from its
// placement through its boot until it ends; no container or other VM can use them meanwhile.
#pragma once

#include "sim/modes/vm/vm_settings.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class Passthrough final : public SharingMode {
 public:
  explicit Passthrough(double boot_s = VmSettings::kDefaultBootS) : boot_s_(boot_s) {}

  std::string_view kind() const override { return "passthrough"; }
  std::string describe() const override;
  // One unit per GPU, one VM per GPU: a GPU bound to vfio-pci has no host driver, so neither
  // a container nor a second VM can be given it until the VM ends.
  int capacity_units() const override { return 1; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return 1; }
  bool isolates_memory() const override { return true; }
  // The VM has the whole GPU: its solo speed.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  // Delays each GPU pod's start by the VM boot; CPU-only pods are containers and start at once.
  std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const override;

  double boot_s() const { return boot_s_; }

 private:
  double boot_s_;
};

}  // namespace slicelab
