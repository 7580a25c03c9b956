// The run's timed events, earliest first: running pods' finishes, delayed starts and restarts in
// place, by tenant slot (a version per slot voids a rescheduled or cancelled one); failed pods'
// re-queues, by pod.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/engine/four_ary_heap.h"

namespace slicelab {

// 24 bytes: the kind rides in the low bits of the scheduling order (the heap of a 10,000-node
// run holds about 50,000 of them; see docs/performance.md, "Fifth round").
struct PodEvent {
  double time;
  uint64_t order;  // seq << 2 | kind: equal times go in scheduling order (seq is unique)
  uint32_t slot;   // a re-queue's: the pod's index in the run
  uint32_t version;
  enum Kind : uint8_t {
    kFinish,
    kStart,    // it starts after its start delay (MIG: re-partitioning)
    kRestart,  // a failed pod, still bound, restarts in place after its back-off
    kRequeue,  // a failed pod goes back to the queue after its back-off (restart_policy.h)
  };
  Kind kind() const { return static_cast<Kind>(order & 3U); }
  // Earliest first; equal times in scheduling order.
  struct Before {
    bool operator()(const PodEvent& a, const PodEvent& b) const {
      return a.time < b.time || (a.time == b.time && a.order < b.order);
    }
  };
};
static_assert(sizeof(PodEvent) == 24 && PodEvent::kRequeue < 4, "the kind takes two bits");

// Contract: a slot has at most one live event; schedule() replaces it and cancel() voids it;
// a stale event is dropped when it reaches the front. A re-queue names a pod, not a slot, and is
// never voided (a pod waiting out its back-off holds no slot and has no other event).
// Slots are small numbers reused by successive pods (GpuTenantTable's): versions are never
// reset, so an event of a slot's earlier pod stays void after the slot is reused, as long as
// that pod's event was popped or cancelled before it left.
class PodEvents {
 public:
  void schedule(uint32_t slot, double time, PodEvent::Kind kind = PodEvent::kFinish) {
    if (slot >= version_.size()) version_.resize(slot + size_t{1}, 0);
    events_.push({time, seq_++ << 2 | kind, slot, ++version_[slot]});
  }
  void requeue(uint32_t pod, double time) {
    events_.push({time, seq_++ << 2 | PodEvent::kRequeue, pod, 0});
  }
  void cancel(uint32_t slot) {
    if (slot < version_.size()) ++version_[slot];
  }
  // The earliest live event, or nullptr when none is left.
  const PodEvent* next() {
    while (!events_.empty() && events_.top().kind() != PodEvent::kRequeue &&
           events_.top().version != version_[events_.top().slot])
      events_.pop();
    return events_.empty() ? nullptr : &events_.top();
  }
  void pop() { events_.pop(); }
  // The event after the front one, live or not (a hint of what comes next), or nullptr.
  const PodEvent* peek_second() const { return events_.runner_up(); }

 private:
  FourAryHeap<PodEvent, PodEvent::Before> events_;
  std::vector<uint32_t> version_;  // per slot
  uint64_t seq_ = 0;
};

}  // namespace slicelab
