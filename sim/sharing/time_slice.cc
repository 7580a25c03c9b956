#include "sim/sharing/time_slice.h"

#include <fmt/format.h>

#include <array>
#include <cassert>

#include "sim/sharing/max_min_fair.h"

namespace slicelab {

std::string TimeSlice::describe() const {
  return fmt::format("time-slice ({} replicas, {:g}% switch overhead)", replicas_, overhead_ * 100);
}

void TimeSlice::rates(std::span<const TenantLoad> tenants, std::span<double> out) const {
  const size_t n = tenants.size();
  std::array<double, 64> demand{};
  std::array<double, 64> alloc{};
  assert(n <= demand.size());
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += demand[i] = tenants[i].sm_demand;
  if (total <= 1.0) {
    for (size_t i = 0; i < n; ++i) out[i] = 1.0;
  } else {
    max_min_fair(std::span(demand).first(n), 1.0 - overhead_, std::span(alloc).first(n));
    for (size_t i = 0; i < n; ++i) out[i] = demand[i] > 0 ? alloc[i] / demand[i] : 1.0;
  }
  if (!interference_.any()) return;
  for (size_t i = 0; i < n; ++i) out[i] /= interference_factor(interference_, tenants, i);
}

}  // namespace slicelab
