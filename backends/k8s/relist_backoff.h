// The pause before a watch lists its kind again, by client-go's reflector rule
// (tools/cache/reflector.go: wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)):
// every re-list waits, the pause doubles from 800 ms up to 30 s, each pause is stretched by a
// random factor in [1, 2), and the pause starts over from 800 ms once two minutes have passed
// since the previous one began.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace slicelab::k8s {

struct BackoffRule {
  std::chrono::milliseconds initial{800};
  std::chrono::milliseconds max{30000};
  std::chrono::milliseconds reset_after{120000};
  double factor = 2.0;
  double jitter = 1.0;  // a pause d becomes d × (1 + jitter × u), u uniform in [0, 1)
};

class RelistBackoff {
 public:
  using Clock = std::chrono::steady_clock;
  RelistBackoff(BackoffRule rule, uint64_t seed) : rule_(rule), step_(rule.initial), rng_(seed) {}
  // The pause to wait now, before the next re-list (client-go's getNextBackoff and Step).
  std::chrono::milliseconds next(Clock::time_point now);

 private:
  BackoffRule rule_;
  std::chrono::milliseconds step_;  // the un-jittered pause of the next call
  Clock::time_point last_start_{};
  bool started_ = false;
  std::mt19937_64 rng_;
};

}  // namespace slicelab::k8s
