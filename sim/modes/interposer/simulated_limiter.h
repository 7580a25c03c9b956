// Runs the limiter that ships (limiter: ComputeLimiter + LaunchPacer) on simulated
// time: N capped tenants on one FIFO device, each with its own limiter, as the interposer does.
#pragma once

#include <cstdint>
#include <span>

namespace slicelab {

struct LimitedTenant {
  double cap = 1.0;     // configured share of GPU time; >= 1: not limited
  double demand = 1.0;  // share of GPU time it would use alone (it idles the rest), (0, 1]
  int64_t kernel_ns = 1'000'000;
};

struct LimiterSimConfig {
  int64_t window_ns = 1'000'000'000;  // simulated time per tenant
  int64_t warmup_ns = 200'000'000;    // not measured: the limiters settle first
  int64_t host_ns = 3'000;            // CPU time of one launch call
  int measure_every = 1;              // the pacer times one launch in this many
};

// Each tenant loops: launch a kernel through its pacer, wait for it, idle so that alone it
// would use `demand` of the GPU. The tenant whose clock is behind always acts next, so work
// reaches the device in the order of simulated time. Writes each tenant's achieved share of
// GPU time over [warmup, window).
void simulate_limiter(std::span<const LimitedTenant> tenants, const LimiterSimConfig& config,
                      std::span<double> achieved);

}  // namespace slicelab
