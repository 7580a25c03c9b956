// A toy sharing mode, the worked example of docs/adding-a-sharing-mode.md: each GPU is cut into
// `slots` equal slots, one pod per slot, each held to its slot's share of the GPU's time.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string_view>

#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// The mode's own settings: what `sharing: {mode: equal-slots, slots: N}` says.
struct EqualSlotsSettings {
  int slots = 2;
};

class EqualSlots final : public SharingMode {
 public:
  explicit EqualSlots(std::shared_ptr<const EqualSlotsSettings> settings)
      : settings_(std::move(settings)) {}

  std::string_view kind() const override { return "equal-slots"; }
  std::string describe() const override;
  int capacity_units() const override { return settings_->slots; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return settings_->slots; }
  bool isolates_memory() const override { return false; }
  // Each tenant may take its slot, 1/slots of the GPU's time, and is promised that much (or its
  // demand, if smaller); the GPU's whole time is shared.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;

 private:
  std::shared_ptr<const EqualSlotsSettings> settings_;
};

// The registry's reader and factory (one line in sim/modes/mode_registry.cc).
void read_equal_slots(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      SharingConfig& config);
std::unique_ptr<SharingMode> make_equal_slots_mode(const SharingConfig& config);

}  // namespace slicelab
