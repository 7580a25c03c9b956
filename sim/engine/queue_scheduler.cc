#include "sim/engine/queue_scheduler.h"

#include <algorithm>

namespace slicelab {
namespace {

// A backfill pass remembers at most this many failed shapes (no allocation in a pass); pods of
// other shapes are tried even when they failed already, which costs time, not correctness.
constexpr size_t kFailedShapesPerPass = 64;

bool same_shape(const PodRequest& a, const PodRequest& b) {
  return a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib &&
         a.gpu_memory_mib == b.gpu_memory_mib && a.model_mask == b.model_mask &&
         a.gpu_count == b.gpu_count && a.claim_units == b.claim_units;
}

}  // namespace

void QueueScheduler::prepare(PodRequestView requests) {
  requests_ = requests;
  failed_shapes_.reserve(kFailedShapesPerPass);
}

void QueueScheduler::arrive(uint32_t pod, int priority, uint64_t seq, PlacementAttempt& place,
                            bool skip_failed_shapes) {
  // With backfill and nothing freed since the last pass, every waiting pod would fail again:
  // only the newcomer can succeed, so it is the only one tried.
  if (backfill_ && !pending_.empty()) {
    if (!place.try_place(pod)) pending_.push(pod, priority, seq);
    return;
  }
  pending_.push(pod, priority, seq);
  schedule(place, skip_failed_shapes);
}

void QueueScheduler::schedule(PlacementAttempt& place, bool skip_failed_shapes) {
  if (pending_.empty()) return;
  if (!backfill_) {
    for (uint32_t head = pending_.front(); head != PendingQueue::kGone; head = pending_.front()) {
      if (!place.try_place(head)) break;  // the head blocks everyone behind it
      pending_.remove_at(pending_.slot_begin());
    }
    // Also when the head blocks: else the removed pods' entries pile up in front of it for as
    // long as the queue never empties (a million-pod replay: 16 MB, not 2).
    pending_.compact();
    return;
  }
  // Backfill: every waiting pod may go, in queue order. A shape that failed in this pass will
  // fail again until something is freed, so it is skipped rather than retried (not where equal
  // requests can fit differently, e.g. MIG's profiles).
  failed_shapes_.clear();
  const size_t end = pending_.slot_end();
  for (size_t s = pending_.slot_begin(); s < end; ++s) {
    const uint32_t p = pending_.pod_at(s);
    if (p == PendingQueue::kGone) continue;
    const PodRequest& r = requests_[p];
    if (skip_failed_shapes && std::any_of(failed_shapes_.begin(), failed_shapes_.end(),
                                          [&](const PodRequest& f) { return same_shape(f, r); }))
      continue;
    if (place.try_place(p)) {
      pending_.remove_at(s);
    } else if (failed_shapes_.size() < failed_shapes_.capacity() &&
               place.failure_shared_by_shape(p)) {
      failed_shapes_.push_back(r);
    }
  }
  pending_.compact();
}

bool QueueScheduler::withdraw(uint32_t pod) {
  for (size_t i = pending_.slot_begin(); i < pending_.slot_end(); ++i)
    if (pending_.pod_at(i) == pod) {
      pending_.remove_at(i);
      return true;
    }
  return false;
}

}  // namespace slicelab
