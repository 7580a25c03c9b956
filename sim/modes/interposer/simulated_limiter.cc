#include "sim/modes/interposer/simulated_limiter.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <memory>
#include <vector>

#include "limiter/compute_limiter.h"

namespace slicelab {
namespace {

// The device all tenants share: kernels run one after another in submission order.
struct Device {
  int64_t busy_until = 0;
};

// One tenant's view of time and of its launches, with CUDA-event semantics for the pacer's
// timing (a start event completes when the device reaches it, an end event when it finishes).
struct Probe {
  static constexpr size_t kRing = 32;
  Device* dev = nullptr;
  int64_t now_ns = 0;
  int64_t last_end = 0;
  int64_t busy_measured = 0;
  int64_t from = 0, to = 0;  // measurement window
  int64_t ev_begin[kRing] = {};
  int64_t ev_end[kRing] = {};

  int64_t now() const { return now_ns; }
  void sleep(int64_t ns) { now_ns += ns; }
  void begin(size_t slot, int /*stream*/) { ev_begin[slot] = std::max(now_ns, dev->busy_until); }
  void end(size_t slot, int /*stream*/) { ev_end[slot] = dev->busy_until; }
  int64_t elapsed(size_t slot, bool block) {
    if (now_ns < ev_end[slot]) {
      if (!block) return -1;
      now_ns = ev_end[slot];
    }
    return ev_end[slot] - ev_begin[slot];
  }
  void run(int64_t d) {
    const int64_t start = std::max(now_ns, dev->busy_until);
    dev->busy_until = start + d;
    last_end = dev->busy_until;
    busy_measured += std::max<int64_t>(0, std::min(last_end, to) - std::max(start, from));
  }
};

struct Tenant {
  limiter::ComputeLimiter lim;
  Probe probe;
  std::unique_ptr<limiter::LaunchPacer<Probe, Probe::kRing>> pacer;
  int64_t kernel_ns = 0;
  int64_t idle_ns = 0;
};

}  // namespace

void simulate_limiter(std::span<const LimitedTenant> tenants, const LimiterSimConfig& config,
                      std::span<double> achieved) {
  assert(tenants.size() == achieved.size());
  const size_t n = tenants.size();
  if (n == 0) return;
  Device dev;
  // The interposer's own settings (limiter defaults: 2 ms burst, 100 us sleeps).
  std::vector<Tenant> ts(n);
  for (size_t i = 0; i < n; ++i) {
    const LimitedTenant& t = tenants[i];
    Tenant& s = ts[i];
    limiter::ComputeLimiter::Config c;
    c.share = t.cap;
    s.lim.configure(c);
    s.probe.dev = &dev;
    s.probe.from = config.warmup_ns;
    s.probe.to = config.window_ns;
    s.pacer = std::make_unique<limiter::LaunchPacer<Probe, Probe::kRing>>(s.lim, s.probe,
                                                                          config.measure_every);
    s.kernel_ns = std::max<int64_t>(1'000, t.kernel_ns);
    const double demand = std::clamp(t.demand, 1e-3, 1.0);
    s.idle_ns = static_cast<int64_t>(static_cast<double>(s.kernel_ns) * (1.0 / demand - 1.0));
  }
  for (;;) {
    size_t next = n;
    for (size_t i = 0; i < n; ++i)
      if (ts[i].probe.now_ns < config.window_ns &&
          (next == n || ts[i].probe.now_ns < ts[next].probe.now_ns))
        next = i;
    if (next == n) break;
    Tenant& s = ts[next];
    // Throttling is a step of its own, so that the others act in the time it sleeps.
    if (const int64_t wait = s.lim.admit(s.probe.now_ns); wait > 0) {
      s.probe.now_ns += wait;
      continue;
    }
    s.pacer->launch(static_cast<uint64_t>(next + 1), 0, [&] {
      s.probe.run(s.kernel_ns);
      return true;
    });
    s.probe.now_ns += config.host_ns;
    // It waits for its kernel (a synchronising loop), then idles for the rest of its step.
    s.probe.now_ns = std::max(s.probe.now_ns, s.probe.last_end) + s.idle_ns;
  }
  const double span = static_cast<double>(config.window_ns - config.warmup_ns);
  for (size_t i = 0; i < n; ++i)
    achieved[i] = span > 0 ? static_cast<double>(ts[i].probe.busy_measured) / span : 0.0;
}

}  // namespace slicelab
