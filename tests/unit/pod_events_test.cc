// Pins down PodEvents: earliest first, equal times in scheduling order, and a slot's
// rescheduled or cancelled event void, also after the slot passed to another pod.
#include "sim/engine/pod_events.h"

#include <gtest/gtest.h>

#include <queue>
#include <random>
#include <utility>
#include <vector>

#include "sim/engine/four_ary_heap.h"

namespace slicelab {
namespace {

// Pops every live event: (slot, time).
std::vector<std::pair<uint32_t, double>> drain(PodEvents& events) {
  std::vector<std::pair<uint32_t, double>> out;
  for (const PodEvent* e = events.next(); e != nullptr; e = events.next()) {
    out.emplace_back(e->slot, e->time);
    events.pop();
  }
  return out;
}

TEST(SimPodEvents, EarliestFirstThenInSchedulingOrder) {
  PodEvents events;
  events.schedule(3, 20.0);
  events.schedule(0, 10.0);
  events.schedule(7, 20.0);
  events.schedule(1, 10.0);
  const std::vector<std::pair<uint32_t, double>> want{{0, 10.0}, {1, 10.0}, {3, 20.0}, {7, 20.0}};
  EXPECT_EQ(drain(events), want);
}

TEST(SimPodEvents, RescheduledAndCancelledEventsAreVoid) {
  PodEvents events;
  events.schedule(0, 10.0);
  events.schedule(1, 15.0);
  events.schedule(0, 30.0);  // replaces slot 0's event at 10
  events.cancel(1);
  events.schedule(2, 5.0, PodEvent::kStart);
  const PodEvent* first = events.next();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->kind(), PodEvent::kStart);
  const std::vector<std::pair<uint32_t, double>> want{{2, 5.0}, {0, 30.0}};
  EXPECT_EQ(drain(events), want);
}

TEST(SimPodEvents, AReusedSlotDoesNotReviveItsEarlierPodsEvent) {
  // Slot 4's first pod has its finish at 50 cancelled (it failed); the next pod in slot 4
  // finishes at 80. Only the event at 80 is live, though both are still queued.
  PodEvents events;
  events.schedule(4, 50.0);
  events.cancel(4);
  events.schedule(4, 80.0);
  const std::vector<std::pair<uint32_t, double>> want{{4, 80.0}};
  EXPECT_EQ(drain(events), want);
}

// The four-ary heap pops what std::priority_queue pops, through pushes and pops interleaved at
// random, with many equal times (a total order: ties broken by a unique sequence number).
TEST(SimPodEvents, FourAryHeapPopsAsStdPriorityQueue) {
  struct Item {
    int time;
    int seq;
  };
  struct Before {
    bool operator()(const Item& a, const Item& b) const {
      return a.time < b.time || (a.time == b.time && a.seq < b.seq);
    }
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return Before{}(b, a); }
  };
  std::mt19937_64 rng(5);
  FourAryHeap<Item, Before> heap;
  std::priority_queue<Item, std::vector<Item>, Later> want;
  int seq = 0;
  for (int step = 0; step < 200000; ++step) {
    if (want.empty() || rng() % 3 != 0) {
      const Item x{static_cast<int>(rng() % 50), seq++};
      heap.push(x);
      want.push(x);
    } else {
      ASSERT_EQ(heap.top().seq, want.top().seq) << "step " << step;
      // runner_up() names the element that a pop brings to the top (the engine's hints of the
      // event after next rely on it), and nothing when one or none is left.
      const Item* second = heap.runner_up();
      const int second_seq = second == nullptr ? -1 : second->seq;
      heap.pop();
      want.pop();
      if (want.empty()) {
        ASSERT_EQ(second_seq, -1) << "step " << step;
      } else {
        ASSERT_EQ(second_seq, want.top().seq) << "step " << step;
      }
    }
    ASSERT_EQ(heap.size(), want.size());
  }
  for (; !want.empty(); want.pop(), heap.pop()) ASSERT_EQ(heap.top().seq, want.top().seq);
  EXPECT_TRUE(heap.empty());
  EXPECT_EQ(heap.runner_up(), nullptr);
}

}  // namespace
}  // namespace slicelab
