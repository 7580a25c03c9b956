#include "tests/sharing/example_mode/equal_slots.h"

#include <fmt/format.h>

#include <algorithm>

#include "workloads/input_limits.h"

namespace slicelab {

std::string EqualSlots::describe() const {
  return fmt::format("equal-slots ({} per GPU)", settings_->slots);
}

GpuTerms EqualSlots::declare(std::span<const TenantLoad> tenants,
                             std::span<TenantTerms> terms) const {
  const double slot = 1.0 / settings_->slots;
  for (size_t i = 0; i < tenants.size(); ++i) {
    terms[i].bound = slot;
    terms[i].promised = std::min(slot, tenants[i].sm_demand);
  }
  return {.capacity = 1.0};
}

void read_equal_slots(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      SharingConfig& config) {
  auto settings = std::make_shared<EqualSlotsSettings>();
  if (node.IsMap()) {
    yaml.check_keys(node, path, {"mode", "slots"});
    settings->slots = static_cast<int>(
        yaml.opt_integer(node, path, "slots", 1, kMaxTenantsPerGpu).value_or(settings->slots));
  }
  config.set_mode_settings(std::move(settings));
}

std::unique_ptr<SharingMode> make_equal_slots_mode(const SharingConfig& config) {
  auto settings = config.mode_settings<EqualSlotsSettings>();
  return std::make_unique<EqualSlots>(settings ? std::move(settings)
                                               : std::make_shared<const EqualSlotsSettings>());
}

}  // namespace slicelab
