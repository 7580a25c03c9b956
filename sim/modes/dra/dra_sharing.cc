#include "sim/modes/dra/dra_sharing.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/modes/dra/dra_claims_json.h"
#include "sim/modes/dra/dra_run.h"

namespace slicelab {
namespace {

const DraNvidiaGpuSharing* first_sharing(const DraModel& m) {
  auto in = [](const DraOpaqueDeviceConfiguration& c) -> const DraNvidiaGpuSharing* {
    return c.gpu_config && c.gpu_config->sharing ? &*c.gpu_config->sharing : nullptr;
  };
  for (const DraDeviceClass& c : m.device_classes) {
    for (const auto& cfg : c.config) {
      if (const auto* s = in(cfg)) return s;
    }
  }
  auto in_spec = [&](const DraResourceClaimSpec& spec) -> const DraNvidiaGpuSharing* {
    for (const auto& cfg : spec.config) {
      if (const auto* s = in(cfg.opaque)) return s;
    }
    return nullptr;
  };
  for (const DraResourceClaim& c : m.resource_claims) {
    if (const auto* s = in_spec(c.spec)) return s;
  }
  for (const DraResourceClaimTemplate& t : m.resource_claim_templates) {
    if (const auto* s = in_spec(t.spec)) return s;
  }
  return nullptr;
}

}  // namespace

DraSharing::DraSharing(std::shared_ptr<const DraSettings> settings,
                       InterferenceCoefficients interference)
    : settings_(std::move(settings)), interference_(interference) {
  const DraModel& m = *settings_->model;
  overhead_ = settings_->context_switch_overhead;
  bool multi = false;
  for (const DraResourceSlice& s : m.resource_slices) {
    for (const DraDevice& d : s.devices) multi = multi || d.allow_multiple_allocations;
  }
  const DraNvidiaGpuSharing* sharing = first_sharing(m);
  if (sharing != nullptr && sharing->strategy == "MPS") {
    strategy_ = Strategy::kMps;
    if (sharing->mps_config && sharing->mps_config->default_pinned_device_memory_limit) {
      pinned_limit_mib_ =
          sharing->mps_config->default_pinned_device_memory_limit->value / (int64_t{1} << 20);
    }
  } else if ((sharing != nullptr && sharing->strategy == "TimeSlicing") || multi) {
    strategy_ = Strategy::kTimeSlicing;
    const std::string interval = sharing != nullptr && sharing->time_slicing_config
                                     ? sharing->time_slicing_config->interval
                                     : "Default";
    // A shorter slice switches more often: twice the cost; a longer one half of it.
    if (interval == "Short") overhead_ *= 2.0;
    if (interval == "Long") overhead_ *= 0.5;
  }
}

std::string DraSharing::describe() const {
  switch (strategy_) {
    case Strategy::kMps:
      return "dra (structured allocator; GpuConfig MPS)";
    case Strategy::kTimeSlicing:
      return fmt::format("dra (structured allocator; time-slicing, {:.0f}% switch overhead)",
                         overhead_ * 100);
    case Strategy::kExclusive:
      break;
  }
  return "dra (structured allocator; one pod per device or partition)";
}

int DraSharing::capacity_units() const {
  return DraClaimState::kUnitsPerGpu;
}

int DraSharing::max_tenants() const {
  return 48;  // MPS's client limit; MIG has at most 7 partitions
}

GpuTerms DraSharing::declare(std::span<const TenantLoad> tenants,
                             std::span<TenantTerms> terms) const {
  // sm_cap: a partition's share of the SMs, or an MPS client's thread percentage.
  for (size_t i = 0; i < tenants.size(); ++i) terms[i].bound = tenants[i].sm_cap;
  switch (strategy_) {
    case Strategy::kMps:
      for (size_t i = 0; i < tenants.size(); ++i) {
        terms[i].promised = std::min(tenants[i].sm_cap, tenants[i].sm_demand);
      }
      return {.capacity = 1.0, .interference = interference_};
    case Strategy::kTimeSlicing: {
      double total = 0;
      for (const TenantLoad& t : tenants) total += t.sm_demand;
      return {.capacity = total <= 1.0 ? 1.0 : 1.0 - overhead_, .interference = interference_};
    }
    case Strategy::kExclusive:
      break;
  }
  return {.capacity = GpuTerms::kUnlimited};  // partitions share no SM time
}

int64_t DraSharing::memory_limit_mib(int64_t request_mib, int64_t /*gpu_memory_mib*/) const {
  if (strategy_ != Strategy::kMps) return -1;
  return pinned_limit_mib_.value_or(request_mib);
}

double DraSharing::fault_propagation() const {
  return strategy_ == Strategy::kMps ? settings_->fault_propagation : 0.0;
}

std::unique_ptr<SharingRun> DraSharing::start_run(const RunSetup& setup) const {
  return std::make_unique<DraRun>(setup, *settings_);
}

void DraRun::write_results(RunSummary& summary, double /*stranded_gpu_s*/, double /*gpu_s*/) const {
  if (state_->records().empty()) return;
  summary.mode_results.documents.push_back(
      {"claims.json", "claims", dra_claims_json_text(state_->records())});
}

}  // namespace slicelab
