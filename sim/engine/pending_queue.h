// Pods waiting to be placed, ordered by priority (higher first) and then arrival. Removal
// leaves a tombstone so that FIFO pops and backfill removals cost O(1) amortised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace slicelab {

class PendingQueue {
 public:
  static constexpr uint32_t kGone = UINT32_MAX;

  // `seq` orders pods of equal priority (their arrival order).
  void push(uint32_t pod, int priority, uint64_t seq);
  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  // First live pod, or kGone.
  uint32_t front();
  // Slots from the front, live or tombstoned; valid until the next push or compaction.
  size_t slot_begin() const { return head_; }
  size_t slot_end() const { return items_.size(); }
  uint32_t pod_at(size_t slot) const { return items_[slot].pod; }
  void remove_at(size_t slot);
  // Drops tombstones once they dominate; call between passes, not inside one.
  void compact();
  template <typename Fn>
  void for_each(Fn fn) const {
    for (size_t i = head_; i < items_.size(); ++i)
      if (items_[i].pod != kGone) fn(items_[i].pod);
  }

 private:
  // 16 bytes: a long queue (tens of thousands waiting in a million-pod replay) stays small.
  struct Item {
    uint64_t seq;
    int32_t priority;
    uint32_t pod;
  };
  std::vector<Item> items_;
  size_t head_ = 0;
  size_t live_ = 0;
};

}  // namespace slicelab
