// Pins down PodEvents: earliest first, equal times in scheduling order, and a slot's
// rescheduled or cancelled event void, also after the slot passed to another pod.
#include "sim/engine/pod_events.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

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
  EXPECT_EQ(first->kind, PodEvent::kStart);
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

}  // namespace
}  // namespace slicelab
