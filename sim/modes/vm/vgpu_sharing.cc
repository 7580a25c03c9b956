#include "sim/modes/vm/vgpu_sharing.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/modes/vm/vgpu_run.h"

namespace slicelab {

std::string_view vgpu_scheduler_name(VgpuScheduler s) {
  switch (s) {
    case VgpuScheduler::kBestEffort:
      return "best-effort";
    case VgpuScheduler::kEqualShare:
      return "equal-share";
    case VgpuScheduler::kFixedShare:
      return "fixed-share";
  }
  return "best-effort";
}

std::string VgpuSharing::describe() const {
  const VmSettings& s = *settings_;
  return fmt::format("vgpu ({}, {:g} ms slices, {:g} ms switch, {}{:g}s VM boot)",
                     vgpu_scheduler_name(s.scheduler), s.time_slice_ms, s.switch_cost_ms,
                     s.profile.empty() ? "" : "profile " + s.profile + ", ", s.boot_s);
}

GpuTerms VgpuSharing::declare(std::span<const TenantLoad> tenants,
                              std::span<TenantTerms> terms) const {
  const VmSettings& s = *settings_;
  const size_t n = tenants.size();
  double total = 0;
  for (const TenantLoad& t : tenants) total += t.sm_demand;
  // Best effort skips a vGPU with no work, so turns (and their switches) cost time only while
  // the vGPUs' work overlaps; equal and fixed share rotate through every running vGPU.
  const bool turns = n > 1 && (s.scheduler != VgpuScheduler::kBestEffort || total > 1.0);
  const double e = turns ? s.slice_efficiency() : 1.0;
  for (size_t k = 0; k < n; ++k) {
    double bound = GpuTerms::kUnlimited;
    if (s.scheduler == VgpuScheduler::kEqualShare) bound = e / static_cast<double>(n);
    if (s.scheduler == VgpuScheduler::kFixedShare) bound = e * tenants[k].cap;
    if (bound == GpuTerms::kUnlimited) continue;
    terms[k].bound = bound;
    terms[k].promised = std::min(bound, tenants[k].sm_demand);
  }
  return {.capacity = e, .interference = interference_};
}

std::unique_ptr<SharingRun> VgpuSharing::start_run(const RunSetup& setup) const {
  return std::make_unique<VgpuRun>(setup, *settings_);
}

}  // namespace slicelab
