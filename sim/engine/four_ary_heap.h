// A min-heap with four children per node, for the event loop: half the levels of a binary heap,
// and a node's children are adjacent, so a pop among 50,000 events misses the cache less.
#pragma once

#include <cstddef>
#include <vector>

namespace slicelab {

// Contract: top() is an element no other comes Before; for a strict total order the sequence of
// tops is exactly that of any other correct priority queue (std::priority_queue's included).
// Before(a, b): a comes first. No allocation once the capacity is reached.
template <typename T, typename Before>
class FourAryHeap {
 public:
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const T& top() const { return items_.front(); }
  // The element that is top() after a pop() (unless a push comes first), or nullptr when
  // there is none: the earliest of the root's children.
  const T* runner_up() const {
    const size_t n = items_.size();
    if (n < 2) return nullptr;
    const size_t end = n < 5 ? n : 5;
    size_t best = 1;
    for (size_t c = 2; c < end; ++c)
      if (Before{}(items_[c], items_[best])) best = c;
    return &items_[best];
  }

  void push(const T& x) {
    size_t i = items_.size();
    items_.push_back(x);
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!Before{}(x, items_[parent])) break;
      items_[i] = items_[parent];
      i = parent;
    }
    items_[i] = x;
  }

  void pop() {
    const T last = items_.back();
    items_.pop_back();
    const size_t n = items_.size();
    if (n == 0) return;
    size_t i = 0;
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      const size_t end = first + 4 < n ? first + 4 : n;
      size_t best = first;
      for (size_t c = first + 1; c < end; ++c)
        if (Before{}(items_[c], items_[best])) best = c;
      if (!Before{}(items_[best], last)) break;
      items_[i] = items_[best];
      i = best;
    }
    items_[i] = last;
  }

 private:
  std::vector<T> items_;
};

}  // namespace slicelab
