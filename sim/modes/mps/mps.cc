#include "sim/modes/mps/mps.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

namespace slicelab {

std::string Mps::describe() const {
  const std::string limits = cfg_.replicas > 0 ? fmt::format("{} clients of {:g}% threads",
                                                             cfg_.replicas, 100.0 / cfg_.replicas)
                                               : std::string("per-pod limits");
  return fmt::format("mps ({}, fault propagation {:g})", limits, cfg_.fault_propagation);
}

GpuTerms Mps::declare(std::span<const TenantLoad> tenants, std::span<TenantTerms> terms) const {
  for (size_t i = 0; i < tenants.size(); ++i) {
    terms[i].bound = tenants[i].cap;
    // Promised: its thread share or its own demand, whichever is smaller.
    terms[i].promised = std::min(tenants[i].cap, tenants[i].sm_demand);
  }
  return {.capacity = 1.0, .interference = cfg_.interference};
}

std::unique_ptr<SharingMode> make_mps_mode(const SharingConfig& config) {
  const auto settings = config.mode_settings<MpsSettings>();
  const MpsSettings s = settings ? *settings : MpsSettings{};
  return std::make_unique<Mps>(Mps::Config{s.replicas, s.fault_propagation,
                                           s.client_fault_probability, config.interference});
}

}  // namespace slicelab
