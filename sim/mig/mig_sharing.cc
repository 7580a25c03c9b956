#include "sim/mig/mig_sharing.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/mig/mig_run.h"

namespace slicelab {

std::string MigSharing::describe() const {
  const MigSettings& s = *settings_;
  if (!s.dynamic) return fmt::format("mig (layout {})", s.layout);
  if (s.layout.empty()) return fmt::format("mig (dynamic, {:g}s reconfigure)", s.reconfigure_s);
  return fmt::format("mig (dynamic from layout {}, {:g}s reconfigure)", s.layout, s.reconfigure_s);
}

void MigSharing::rates(std::span<const TenantLoad> tenants, std::span<double> out) const {
  for (size_t i = 0; i < tenants.size(); ++i) {
    const TenantLoad& t = tenants[i];
    out[i] = t.sm_demand > 0 ? std::min(1.0, t.sm_cap / t.sm_demand) : 1.0;
  }
}

std::unique_ptr<SharingRun> MigSharing::start_run(const RunSetup& setup) const {
  return std::make_unique<MigRun>(setup, *settings_);
}

}  // namespace slicelab
