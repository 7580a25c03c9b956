#include "sim/modes/mig/mig_sharing.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/modes/mig/mig_run.h"

namespace slicelab {

std::string MigSharing::describe() const {
  const MigSettings& s = *settings_;
  if (!s.dynamic) return fmt::format("mig (layout {})", s.layout);
  if (s.layout.empty()) return fmt::format("mig (dynamic, {:g}s reconfigure)", s.reconfigure_s);
  return fmt::format("mig (dynamic from layout {}, {:g}s reconfigure)", s.layout, s.reconfigure_s);
}

GpuTerms MigSharing::declare(std::span<const TenantLoad> tenants,
                             std::span<TenantTerms> terms) const {
  for (size_t i = 0; i < tenants.size(); ++i) terms[i].bound = tenants[i].sm_cap;
  return {.capacity = GpuTerms::kUnlimited};
}

std::unique_ptr<SharingRun> MigSharing::start_run(const RunSetup& setup) const {
  return std::make_unique<MigRun>(setup, *settings_);
}

}  // namespace slicelab
