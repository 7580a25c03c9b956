// RelistBackoff (relist_backoff.h).
#include "backends/k8s/relist_backoff.h"

#include <algorithm>

namespace slicelab::k8s {

std::chrono::milliseconds RelistBackoff::next(Clock::time_point now) {
  if (!started_ || now - last_start_ > rule_.reset_after) step_ = rule_.initial;
  started_ = true;
  last_start_ = now;
  const std::chrono::milliseconds base = step_;
  const auto grown = std::chrono::milliseconds(
      static_cast<int64_t>(static_cast<double>(step_.count()) * rule_.factor));
  step_ = std::min(grown, rule_.max);
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return std::chrono::milliseconds(
      static_cast<int64_t>(static_cast<double>(base.count()) * (1.0 + rule_.jitter * u)));
}

}  // namespace slicelab::k8s
