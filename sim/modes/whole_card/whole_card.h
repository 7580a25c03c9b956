// Whole-card sharing: a GPU belongs to one pod, however small its share, as with NVIDIA's
// device plugin without sharing. Every pod runs at its solo speed.
#pragma once

#include <memory>

#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class WholeCard final : public SharingMode {
 public:
  std::string_view kind() const override { return "whole-card"; }
  std::string describe() const override { return "whole-card"; }
  int capacity_units() const override { return 1; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return 1; }
  bool isolates_memory() const override { return true; }
  // One tenant, all of the GPU.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
};

// The registry's factory (sim/modes/mode_registry.cc).
std::unique_ptr<SharingMode> make_whole_card_mode(const SharingConfig& config);

}  // namespace slicelab
