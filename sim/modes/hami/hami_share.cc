#include "sim/modes/hami/hami_share.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/modes/hami/hami_run.h"

namespace slicelab {

std::string_view hami_policy_name(HamiPolicy p) {
  return p == HamiPolicy::kBinpack ? "binpack" : "spread";
}

std::optional<HamiPolicy> hami_policy_from_name(std::string_view n) {
  if (n == "binpack") return HamiPolicy::kBinpack;
  if (n == "spread") return HamiPolicy::kSpread;
  return std::nullopt;
}

HamiShare::HamiShare(std::shared_ptr<const HamiSettings> settings,
                     InterferenceCoefficients interference)
    : settings_(std::move(settings)),
      interference_(interference),
      // register.go: devcore = int32(deviceCoreScaling * 100).
      total_cores_(static_cast<int>(settings_->device_core_scaling * 100)) {}

std::string HamiShare::describe() const {
  const HamiSettings& s = *settings_;
  return fmt::format("hami (split {}, memory scaling {:g}, core scaling {:g}, node {}, GPU {})",
                     s.device_split_count, s.device_memory_scaling, s.device_core_scaling,
                     hami_policy_name(s.node_policy), hami_policy_name(s.gpu_policy));
}

GpuTerms HamiShare::declare(std::span<const TenantLoad> tenants,
                            std::span<TenantTerms> terms) const {
  const double scale = settings_->device_core_scaling;
  for (size_t i = 0; i < tenants.size(); ++i) {
    // t.cap is cores / Totalcore; HAMi-core caps at cores / 100 of the GPU.
    const double cap = std::min(1.0, tenants[i].cap * scale);
    terms[i].bound = cap > 0 ? cap : GpuTerms::kUnlimited;
    terms[i].promised = cap > 0 ? std::min(cap, tenants[i].sm_demand) : -1.0;
  }
  return {.capacity = 1.0, .interference = interference_};
}

std::unique_ptr<SharingRun> HamiShare::start_run(const RunSetup& setup) const {
  return std::make_unique<HamiRun>(setup, *settings_, total_cores_);
}

}  // namespace slicelab
