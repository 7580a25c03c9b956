#include "sim/modes/interposer/interposer_share.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <numeric>

namespace slicelab {

int64_t kernel_ns_of(const TenantLoad& t) {
  if (t.launch_khz <= 0) return 1'000'000;
  // launch_khz launches per ms, busy sm of the time: sm * 1e6 / launch_khz ns per launch.
  return std::max<int64_t>(5'000, std::llround(t.sm_demand * 1e6 / t.launch_khz));
}

InterposerShare::InterposerShare(Config c) : cfg_(c) {
  sim_.window_ns = std::llround(std::max(0.05, cfg_.limiter_window_s) * 1e9);
  sim_.warmup_ns = sim_.window_ns / 5;
}

std::string InterposerShare::describe() const {
  return fmt::format("interposer (limiter on simulated time, {:g} ns per launch)",
                     cfg_.launch_overhead_ns);
}

void InterposerShare::achieved_shares(std::span<const TenantLoad> tenants,
                                      std::span<double> out) const {
  const size_t n = tenants.size();
  std::array<uint8_t, kMaxTenantsPerGpu> order{};
  assert(n <= order.size());
  std::iota(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), uint8_t{0});
  auto key_of = [&](size_t i) {
    return std::array<int64_t, 3>{std::llround(tenants[i].cap * 1000),
                                  std::llround(tenants[i].sm_demand * 1000),
                                  kernel_ns_of(tenants[i])};
  };
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n),
            [&](uint8_t a, uint8_t b) {
              return key_of(a) < key_of(b) || (key_of(a) == key_of(b) && a < b);
            });
  key_.clear();
  for (size_t k = 0; k < n; ++k)
    for (const int64_t v : key_of(order[k])) key_.push_back(v);
  auto it = cache_.find(key_);
  if (it == cache_.end()) {
    std::array<LimitedTenant, kMaxTenantsPerGpu> lt{};
    std::vector<double> shares(n);
    for (size_t k = 0; k < n; ++k) {
      const auto v = key_of(order[k]);
      lt[k] = {static_cast<double>(v[0]) / 1000.0, static_cast<double>(v[1]) / 1000.0, v[2]};
    }
    simulate_limiter(std::span(lt).first(n), sim_, shares);
    it = cache_.emplace(key_, std::move(shares)).first;
  }
  for (size_t k = 0; k < n; ++k) out[order[k]] = it->second[k];
}

GpuTerms InterposerShare::declare(std::span<const TenantLoad> tenants,
                                  std::span<TenantTerms> terms) const {
  const size_t n = tenants.size();
  std::array<double, kMaxTenantsPerGpu> achieved{};
  assert(n <= achieved.size());
  achieved_shares(tenants, std::span(achieved).first(n));
  for (size_t i = 0; i < n; ++i) {
    const TenantLoad& t = tenants[i];
    terms[i].bound = achieved[i];
    // Each launch costs the interposer's added CPU time: launch-bound loops slow by
    // 1 + overhead * launches per unit of time.
    terms[i].overhead = 1.0 + cfg_.launch_overhead_ns * 1e-6 * t.launch_khz;
    terms[i].promised = std::min(t.cap, t.sm_demand);
  }
  return {.capacity = GpuTerms::kUnlimited, .interference = cfg_.interference};
}

std::unique_ptr<SharingMode> make_interposer_mode(const SharingConfig& config) {
  const auto settings = config.mode_settings<InterposerSettings>();
  const InterposerSettings s = settings ? *settings : InterposerSettings{};
  return std::make_unique<InterposerShare>(InterposerShare::Config{
      s.launch_overhead_ns.value_or(InterposerSettings::kDefaultLaunchOverheadNs),
      s.limiter_window_s, config.interference});
}

}  // namespace slicelab
