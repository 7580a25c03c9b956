#include "sim/sharing/mps.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

#include "sim/sharing/max_min_fair.h"

namespace slicelab {

std::string Mps::describe() const {
  const std::string limits = cfg_.replicas > 0 ? fmt::format("{} clients of {:g}% threads",
                                                             cfg_.replicas, 100.0 / cfg_.replicas)
                                               : std::string("per-pod limits");
  return fmt::format("mps ({}, fault propagation {:g})", limits, cfg_.fault_propagation);
}

void Mps::rates(std::span<const TenantLoad> tenants, std::span<double> out) const {
  std::array<double, 64> err{};
  assert(tenants.size() <= err.size());
  progress(tenants, out, std::span(err).first(tenants.size()));
}

void Mps::progress(std::span<const TenantLoad> tenants, std::span<double> rates_out,
                   std::span<double> isolation_error) const {
  const size_t n = tenants.size();
  std::array<double, 64> demand{};
  std::array<double, 64> alloc{};
  assert(n <= demand.size());
  for (size_t i = 0; i < n; ++i) demand[i] = std::min(tenants[i].sm_demand, tenants[i].cap);
  max_min_fair(std::span(demand).first(n), 1.0, std::span(alloc).first(n));
  for (size_t i = 0; i < n; ++i) {
    const TenantLoad& t = tenants[i];
    const double base = t.sm_demand > 0 ? alloc[i] / t.sm_demand : 1.0;
    rates_out[i] = base / interference_factor(cfg_.interference, tenants, i);
    // Promised: its thread share or its own demand, whichever is smaller; delivered: the SM
    // time that turns into progress.
    isolation_error[i] = std::abs(std::min(t.cap, t.sm_demand) - t.sm_demand * rates_out[i]);
  }
}

}  // namespace slicelab
