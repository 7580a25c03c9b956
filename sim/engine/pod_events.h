// The pods' timed events, earliest first: finishes and delayed starts. Each pod has a version;
// rescheduling or cancelling bumps it, so a stale event is dropped when it reaches the front.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace slicelab {

struct PodEvent {
  double time;
  uint64_t seq;  // equal times go in scheduling order
  uint32_t pod;
  uint32_t version;
  bool starts;  // it starts after its start delay (MIG: re-partitioning), not a finish
  // std::priority_queue is a max-heap: "greater" means later.
  bool operator<(const PodEvent& o) const {
    return time > o.time || (time == o.time && seq > o.seq);
  }
};

// Contract: a pod has at most one live event; schedule() replaces it and cancel() voids it.
class PodEvents {
 public:
  void prepare(size_t pods) { version_.assign(pods, 0); }
  void schedule(uint32_t pod, double time, bool starts = false) {
    events_.push({time, seq_++, pod, ++version_[pod], starts});
  }
  void cancel(uint32_t pod) { ++version_[pod]; }
  // The earliest live event, or nullptr when none is left.
  const PodEvent* next() {
    while (!events_.empty() && events_.top().version != version_[events_.top().pod]) events_.pop();
    return events_.empty() ? nullptr : &events_.top();
  }
  void pop() { events_.pop(); }

 private:
  std::priority_queue<PodEvent> events_;
  std::vector<uint32_t> version_;  // per pod
  uint64_t seq_ = 0;
};

}  // namespace slicelab
