#include "limiter/compute_limiter.h"

#include <algorithm>
#include <cmath>

namespace slicelab::limiter {

ComputeLimiter::ComputeLimiter(Config c) {
  configure(c);
}

void ComputeLimiter::configure(Config c) {
  cfg_ = c;
  unlimited_ = !(c.share > 0.0 && c.share < 1.0);
  inv_share_ = unlimited_ ? 1.0 : 1.0 / c.share;
  own_.store(INT64_MIN / 2, std::memory_order_relaxed);
}

int64_t ComputeLimiter::admit(int64_t now_ns) const {
  if (unlimited_) return 0;
  const int64_t debt = tat_->load(std::memory_order_relaxed) - now_ns - cfg_.burst_ns;
  // Small debts are carried to a later launch rather than slept: sleeping costs more than a
  // small kernel, and the debt is paid in full once it is large enough to be worth a sleep.
  if (debt < cfg_.min_sleep_ns) return 0;
  return std::min(debt, cfg_.max_sleep_ns);
}

int64_t ComputeLimiter::credit(int64_t now_ns) const {
  if (unlimited_) return INT64_MAX;
  return now_ns + cfg_.burst_ns + cfg_.min_sleep_ns - tat_->load(std::memory_order_relaxed);
}

void ComputeLimiter::charge(int64_t now_ns, int64_t gpu_ns) {
  if (unlimited_) return;
  const int64_t cost = wall_cost(gpu_ns);
  int64_t old = tat_->load(std::memory_order_relaxed);
  // Idle time earns no more credit than the burst allows: tat never lags now by more than that.
  while (!tat_->compare_exchange_weak(old, std::max(old, now_ns - cfg_.burst_ns) + cost,
                                      std::memory_order_relaxed)) {
  }
}

void ComputeLimiter::correct(int64_t charged_ns, int64_t measured_ns) {
  if (unlimited_ || charged_ns == measured_ns) return;
  tat_->fetch_add(wall_cost(measured_ns) - wall_cost(charged_ns), std::memory_order_relaxed);
}

void DurationEstimator::observe(uint64_t key, int64_t measured_ns) {
  fallback_ns_ += (measured_ns - fallback_ns_) / 8;
  Slot& s = slots_[index(key)];
  if (s.key != key) return;  // the slot was taken by another key meanwhile
  // A light EWMA: follows a kernel whose duration drifts, but one outlier moves it by 1/4 only.
  s.ewma_ns = s.known ? s.ewma_ns + (measured_ns - s.ewma_ns) / 4 : measured_ns;
  s.known = true;
}

}  // namespace slicelab::limiter
