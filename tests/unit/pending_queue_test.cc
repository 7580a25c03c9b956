// Pins down PendingQueue: order by priority (higher first) then sequence, tombstoned removal,
// front() skipping tombstones, and when compaction drops them.
#include "sim/engine/pending_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace slicelab {
namespace {

// Live pods from the front, in queue order.
std::vector<uint32_t> contents(const PendingQueue& q) {
  std::vector<uint32_t> out;
  q.for_each([&](uint32_t p) { out.push_back(p); });
  return out;
}

// All slots from the front, tombstones included (as kGone).
std::vector<uint32_t> slots(const PendingQueue& q) {
  std::vector<uint32_t> out;
  for (size_t s = q.slot_begin(); s < q.slot_end(); ++s) out.push_back(q.pod_at(s));
  return out;
}

constexpr uint32_t kGone = PendingQueue::kGone;

TEST(SimPendingQueue, EmptyQueue) {
  PendingQueue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0U);
  EXPECT_EQ(q.front(), kGone);
  EXPECT_EQ(q.slot_begin(), q.slot_end());
}

TEST(SimPendingQueue, EqualPriorityKeepsSequenceOrder) {
  PendingQueue q;
  q.push(7, 0, 0);
  q.push(3, 0, 1);
  q.push(5, 0, 2);
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{7, 3, 5}));
  EXPECT_EQ(q.front(), 7U);
  EXPECT_EQ(q.size(), 3U);
}

TEST(SimPendingQueue, SequenceNotPushOrderBreaksTies) {
  // Pushed out of sequence: the lower sequence goes first.
  PendingQueue q;
  q.push(1, 0, 10);
  q.push(2, 0, 5);
  q.push(3, 0, 7);
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{2, 3, 1}));
}

TEST(SimPendingQueue, HigherPriorityFirstThenSequence) {
  PendingQueue q;
  q.push(0, 0, 0);
  q.push(1, 5, 1);
  q.push(2, 5, 2);
  q.push(3, 1, 3);
  q.push(4, -2, 4);
  q.push(5, 1, 5);
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{1, 2, 3, 5, 0, 4}));
  EXPECT_EQ(q.front(), 1U);
}

TEST(SimPendingQueue, RemovingTheHeadAdvancesFront) {
  PendingQueue q;
  for (uint32_t p = 0; p < 4; ++p) q.push(p, 0, p);
  q.remove_at(q.slot_begin());
  EXPECT_EQ(q.front(), 1U);
  EXPECT_EQ(q.size(), 3U);
  EXPECT_EQ(q.slot_begin(), 1U);
}

TEST(SimPendingQueue, RemovalInTheMiddleLeavesATombstone) {
  PendingQueue q;
  for (uint32_t p = 0; p < 4; ++p) q.push(p, 0, p);
  q.remove_at(2);
  EXPECT_EQ(slots(q), (std::vector<uint32_t>{0, 1, kGone, 3}));
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(q.size(), 3U);
  // Removing a tombstone again changes nothing.
  q.remove_at(2);
  EXPECT_EQ(q.size(), 3U);
  EXPECT_FALSE(q.empty());
}

TEST(SimPendingQueue, FrontSkipsTombstonesAtTheHead) {
  PendingQueue q;
  for (uint32_t p = 0; p < 5; ++p) q.push(p, 0, p);
  q.remove_at(1);
  q.remove_at(2);
  q.remove_at(0);  // head: moves head to slot 1, which is a tombstone
  EXPECT_EQ(q.front(), 3U);
  EXPECT_EQ(q.slot_begin(), 3U);
  EXPECT_EQ(q.size(), 2U);
}

TEST(SimPendingQueue, PushAfterRemovalsKeepsOrder) {
  PendingQueue q;
  q.push(0, 0, 0);
  q.push(1, 0, 1);
  q.push(2, 0, 2);
  q.remove_at(q.slot_begin());  // pod 0 leaves
  q.remove_at(2);               // pod 2 leaves: tombstone at the back
  q.push(3, 3, 3);              // higher priority: goes to the front
  q.push(4, 0, 4);              // same priority as 1: after it
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{3, 1, 4}));
  EXPECT_EQ(q.front(), 3U);
}

TEST(SimPendingQueue, PushIntoAFullyConsumedQueue) {
  PendingQueue q;
  q.push(0, 5, 0);
  q.remove_at(q.slot_begin());
  EXPECT_TRUE(q.empty());
  q.push(1, 0, 1);  // lower priority than the removed one: still becomes the front
  EXPECT_EQ(q.front(), 1U);
  EXPECT_EQ(q.size(), 1U);
}

TEST(SimPendingQueue, CompactClearsAnEmptyQueue) {
  PendingQueue q;
  for (uint32_t p = 0; p < 3; ++p) q.push(p, 0, p);
  for (size_t s = 0; s < 3; ++s) q.remove_at(s);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.slot_end(), 3U);
  q.compact();
  EXPECT_EQ(q.slot_begin(), 0U);
  EXPECT_EQ(q.slot_end(), 0U);
  EXPECT_EQ(q.front(), kGone);
}

TEST(SimPendingQueue, CompactKeepsFewTombstones) {
  // 10 slots, 3 tombstones: 10 - 0 < 2 * 7 + 64, so nothing moves.
  PendingQueue q;
  for (uint32_t p = 0; p < 10; ++p) q.push(p, 0, p);
  q.remove_at(2);
  q.remove_at(5);
  q.remove_at(8);
  q.compact();
  EXPECT_EQ(q.slot_end(), 10U);
  EXPECT_EQ(q.pod_at(2), kGone);
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{0, 1, 3, 4, 6, 7, 9}));
}

TEST(SimPendingQueue, CompactDropsTombstonesOnceTheyDominate) {
  // 200 slots, 198 removed from the middle: 200 >= 2 * 2 + 64, so tombstones go.
  PendingQueue q;
  for (uint32_t p = 0; p < 200; ++p) q.push(p, 0, p);
  for (size_t s = 1; s < 199; ++s) q.remove_at(s);
  EXPECT_EQ(q.size(), 2U);
  q.compact();
  EXPECT_EQ(q.slot_begin(), 0U);
  EXPECT_EQ(q.slot_end(), 2U);
  EXPECT_EQ(slots(q), (std::vector<uint32_t>{0, 199}));
  // Order and insertion still work after compaction.
  q.push(500, 1, 500);
  q.push(501, 0, 100);
  EXPECT_EQ(contents(q), (std::vector<uint32_t>{500, 0, 501, 199}));
}

TEST(SimPendingQueue, CompactReclaimsALongConsumedPrefix) {
  // 5000 pushed, the first 4096 popped from the head: head reaches 4096 and compaction resets it
  // although few tombstones remain past the head.
  PendingQueue q;
  for (uint32_t p = 0; p < 5000; ++p) q.push(p, 0, p);
  for (uint32_t k = 0; k < 4096; ++k) q.remove_at(q.slot_begin());
  EXPECT_EQ(q.slot_begin(), 4096U);
  q.compact();
  EXPECT_EQ(q.slot_begin(), 0U);
  EXPECT_EQ(q.slot_end(), 904U);
  EXPECT_EQ(q.front(), 4096U);
  EXPECT_EQ(q.size(), 904U);
}

TEST(SimPendingQueue, CompactLeavesAShortConsumedPrefix) {
  PendingQueue q;
  for (uint32_t p = 0; p < 100; ++p) q.push(p, 0, p);
  for (uint32_t k = 0; k < 99; ++k) q.remove_at(q.slot_begin());
  q.compact();  // 1 slot past the head, 1 live: below the threshold, head < 4096
  EXPECT_EQ(q.slot_begin(), 99U);
  EXPECT_EQ(q.front(), 99U);
}

}  // namespace
}  // namespace slicelab
