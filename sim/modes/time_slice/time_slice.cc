#include "sim/modes/time_slice/time_slice.h"

#include <fmt/format.h>

#include <array>
#include <cassert>

namespace slicelab {

std::string TimeSlice::describe() const {
  return fmt::format("time-slice ({} replicas, {:g}% switch overhead)", replicas_, overhead_ * 100);
}

GpuTerms TimeSlice::declare(std::span<const TenantLoad> tenants,
                            std::span<TenantTerms> /*terms*/) const {
  double total = 0;
  for (const TenantLoad& t : tenants) total += t.sm_demand;
  // Context switches cost time only while the tenants' demand exceeds the GPU.
  return {.capacity = total <= 1.0 ? 1.0 : 1.0 - overhead_, .interference = interference_};
}

std::unique_ptr<SharingMode> make_time_slice_mode(const SharingConfig& config) {
  const auto settings = config.mode_settings<TimeSliceSettings>();
  const TimeSliceSettings s = settings ? *settings : TimeSliceSettings{};
  return std::make_unique<TimeSlice>(s.replicas, s.context_switch_overhead, config.interference,
                                     s.time_slice_s);
}

}  // namespace slicelab
