#include "sim/engine/pending_queue.h"

#include <algorithm>

namespace slicelab {

void PendingQueue::push(uint32_t pod, int priority, uint64_t seq) {
  const Item item{seq, static_cast<int32_t>(priority), pod};
  // Higher priority first, then earlier seq.
  auto less = [](const Item& a, const Item& b) {
    return a.priority > b.priority || (a.priority == b.priority && a.seq < b.seq);
  };
  // Common case: same priority, later arrival: append.
  if (items_.size() == head_ || !less(item, items_.back())) {
    items_.push_back(item);
  } else {
    auto pos = std::upper_bound(items_.begin() + static_cast<std::ptrdiff_t>(head_), items_.end(),
                                item, less);
    items_.insert(pos, item);
  }
  ++live_;
}

uint32_t PendingQueue::front() {
  while (head_ < items_.size() && items_[head_].pod == kGone) ++head_;
  return head_ < items_.size() ? items_[head_].pod : kGone;
}

void PendingQueue::remove_at(size_t slot) {
  if (items_[slot].pod == kGone) return;
  items_[slot].pod = kGone;
  --live_;
  if (slot == head_) ++head_;
}

void PendingQueue::compact() {
  if (live_ == 0) {
    items_.clear();
    head_ = 0;
    return;
  }
  if (items_.size() - head_ < 2 * live_ + 64 && head_ < 4096) return;
  std::erase_if(items_, [](const Item& i) { return i.pod == kGone; });
  head_ = 0;
}

}  // namespace slicelab
