// Pins down QueueScheduler: strict FIFO stops at a blocked head, backfill passes it and skips
// shapes that already failed in the pass, and an arrival under backfill tries only itself.
#include "sim/engine/queue_scheduler.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace slicelab {
namespace {

// Places the pods in `fits`; records every attempt.
class ScriptedPlacer final : public PlacementAttempt {
 public:
  explicit ScriptedPlacer(std::set<uint32_t> fits) : fits_(std::move(fits)) {}
  bool try_place(uint32_t pod) override {
    tried.push_back(pod);
    return fits_.count(pod) > 0;
  }
  std::vector<uint32_t> tried;

 private:
  std::set<uint32_t> fits_;
};

// Pods 0 and 3: one shape (one GPU); pod 1: one GPU and some CPU; pod 2: two GPUs.
std::vector<PodRequest> queue_requests() {
  std::vector<PodRequest> r(4);
  for (PodRequest& q : r) q.gpu_count = 1, q.claim_units = 1;
  r[1].cpu_milli = 1000;
  r[2].gpu_count = 2;
  return r;
}

std::vector<uint32_t> waiting(const QueueScheduler& q) {
  std::vector<uint32_t> out;
  q.pending().for_each([&](uint32_t p) { out.push_back(p); });
  return out;
}

// Queues pods 0..3 without placing any (nothing fits while they arrive).
void queue_all(QueueScheduler& q, bool skip) {
  ScriptedPlacer none({});
  for (uint32_t p = 0; p < 4; ++p) q.arrive(p, 0, p, none, skip);
}

TEST(SimQueueScheduler, FifoStopsAtTheBlockedHead) {
  const auto reqs = queue_requests();
  QueueScheduler q(false);
  q.prepare(reqs);
  queue_all(q, true);
  ScriptedPlacer placer({1, 2, 3});
  q.schedule(placer, true);
  EXPECT_EQ(placer.tried, (std::vector<uint32_t>{0}));
  EXPECT_EQ(waiting(q), (std::vector<uint32_t>{0, 1, 2, 3}));
}

// The placed pods' entries are dropped while the head still blocks: a queue that never empties
// (a long replay) holds about what waits, not every pod that ever waited.
TEST(SimQueueScheduler, FifoCompactsBehindABlockedHead) {
  std::vector<PodRequest> reqs(5000);
  for (PodRequest& r : reqs) r.gpu_count = 1, r.claim_units = 1;
  QueueScheduler q(false);
  q.prepare(reqs);
  ScriptedPlacer none({});
  for (uint32_t p = 0; p < 5000; ++p) q.arrive(p, 0, p, none, true);
  std::set<uint32_t> first;
  for (uint32_t p = 0; p < 4200; ++p) first.insert(p);
  ScriptedPlacer placer(first);
  q.schedule(placer, true);  // places 0..4199; 4200 blocks
  EXPECT_EQ(q.pending().size(), 800u);
  EXPECT_EQ(q.pending().slot_begin(), 0u);
  EXPECT_EQ(q.pending().slot_end(), 800u);
  EXPECT_EQ(q.pending().pod_at(0), 4200u);
}

TEST(SimQueueScheduler, FifoPlacesFromTheHeadUntilOneWaits) {
  const auto reqs = queue_requests();
  QueueScheduler q(false);
  q.prepare(reqs);
  queue_all(q, true);
  ScriptedPlacer placer({0, 1, 3});
  q.schedule(placer, true);
  EXPECT_EQ(placer.tried, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(waiting(q), (std::vector<uint32_t>{2, 3}));
}

TEST(SimQueueScheduler, BackfillSkipsAShapeThatFailedInThisPass) {
  // Pod 0 fails; pod 3 has its shape, so it is not tried; pod 2 (two GPUs) is.
  const auto reqs = queue_requests();
  QueueScheduler q(true);
  q.prepare(reqs);
  queue_all(q, true);
  ScriptedPlacer placer({1, 2, 3});
  q.schedule(placer, true);
  EXPECT_EQ(placer.tried, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(waiting(q), (std::vector<uint32_t>{0, 3}));
}

TEST(SimQueueScheduler, BackfillTriesEveryPodWhereEqualRequestsMayFitDifferently) {
  const auto reqs = queue_requests();
  QueueScheduler q(true);
  q.prepare(reqs);
  queue_all(q, false);
  ScriptedPlacer placer({1, 2, 3});
  q.schedule(placer, false);
  EXPECT_EQ(placer.tried, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(waiting(q), (std::vector<uint32_t>{0}));
}

TEST(SimQueueScheduler, ArrivalUnderBackfillTriesOnlyTheNewcomer) {
  const auto reqs = queue_requests();
  QueueScheduler q(true);
  q.prepare(reqs);
  ScriptedPlacer none({});
  q.arrive(0, 0, 0, none, true);
  q.arrive(1, 0, 1, none, true);
  ScriptedPlacer placer({0, 2});
  q.arrive(2, 0, 2, placer, true);
  EXPECT_EQ(placer.tried, (std::vector<uint32_t>{2}));
  EXPECT_EQ(waiting(q), (std::vector<uint32_t>{0, 1}));
}

TEST(SimQueueScheduler, HigherPriorityIsTriedFirst) {
  const auto reqs = queue_requests();
  QueueScheduler q(false);
  q.prepare(reqs);
  ScriptedPlacer none({});
  q.arrive(0, 0, 0, none, true);
  q.arrive(1, 5, 1, none, true);
  ScriptedPlacer placer({});
  q.schedule(placer, true);
  EXPECT_EQ(placer.tried, (std::vector<uint32_t>{1}));
}

}  // namespace
}  // namespace slicelab
