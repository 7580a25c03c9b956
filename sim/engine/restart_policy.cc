#include "sim/engine/restart_policy.h"

#include <algorithm>
#include <cmath>

namespace slicelab {

const char* to_string(RestartKind k) {
  switch (k) {
    case RestartKind::kNever:
      return "Never";
    case RestartKind::kOnFailure:
      return "OnFailure";
    case RestartKind::kAlways:
      return "Always";
  }
  return "?";
}

double restart_delay_s(const RestartConfig& c, uint32_t streak) {
  // 2^63 x any valid back-off is far past the cap: no need to double further.
  const int doublings = static_cast<int>(std::min<uint32_t>(streak == 0 ? 0 : streak - 1, 63));
  return std::min(std::ldexp(c.backoff_s, doublings), c.max_backoff_s);
}

void RestartPolicy::prepare(size_t pods, const ArrivalOrder& order) {
  if (!enabled()) return;
  rank_.clear();
  if (order.reordered()) {
    rank_.resize(pods);
    for (size_t k = 0; k < pods; ++k) rank_[order[k]] = static_cast<uint32_t>(k);
  }
  streak_.assign(pods, 0);
  last_failure_s_.assign(pods, -1.0);
  counts_ = {};
}

bool restart_can_cure(FailureCause cause) {
  switch (cause) {
    case FailureCause::kNeighboursMemory:
    case FailureCause::kOvercommittedMemory:
    case FailureCause::kNeighbourFault:
    case FailureCause::kClientFault:
      return true;
    case FailureCause::kNone:
    case FailureCause::kOverMemoryCap:
    case FailureCause::kInstanceMemory:
    case FailureCause::kAllocationRefused:
    case FailureCause::kProcessFailed:
      return false;
  }
  return false;
}

void RestartPolicy::failed(uint32_t p, const PodOutcome& o, uint32_t slot, PodEvents& events) {
  if (!enabled() || !restart_can_cure(o.failure)) return;
  const double at = next_restart_s(p, o.finish_s);
  if (config_.reschedule)
    events.requeue(p, at);
  else
    events.schedule(slot, at, PodEvent::kRestart);
}

double RestartPolicy::next_restart_s(uint32_t p, double now) {
  // client-go's Backoff.Next: a failure long after the last one starts afresh.
  const double last = last_failure_s_[p];
  if (last < 0 || now - last > kRestartResetS) streak_[p] = 0;
  if (streak_[p] < UINT8_MAX) ++streak_[p];
  last_failure_s_[p] = now;
  return now + restart_delay_s(config_, streak_[p]);
}

void RestartPolicy::restarted_in_place(PodOutcome& o) {
  if (o.restarts == 0) ++counts_.pods;
  ++counts_.total;
  if (o.restarts < UINT8_MAX) ++o.restarts;
}

uint64_t RestartPolicy::restarted(uint32_t p, PodOutcome& o) {
  restarted_in_place(o);
  const uint8_t restarts = o.restarts;
  // Its GPU room (gpu_begin) stays: the next bind writes there.
  const uint32_t room = o.gpu_begin;
  o = PodOutcome{};
  o.gpu_begin = room;
  o.restarts = restarts;
  return rank_.empty() ? p : rank_[p];
}

std::optional<RestartCounts> RestartPolicy::counts() const {
  if (!enabled()) return std::nullopt;
  return counts_;
}

void RestartPolicy::forget_pods() {
  std::vector<uint32_t>().swap(rank_);
  std::vector<uint8_t>().swap(streak_);
  std::vector<double>().swap(last_failure_s_);
}

}  // namespace slicelab
