// kube-scheduler's percentageOfNodesToScore (sim/placement/node_sampling.h): numFeasibleNodesToFind
// against values worked by hand from schedule_one.go, and the rotating start of the filter scan.
#include "sim/placement/node_sampling.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace slicelab {
namespace {

TEST(NodeSampling, NumFeasibleNodesToFindFollowsKubeScheduler) {
  // Below minFeasibleNodesToFind (100): every node, whatever the percentage.
  EXPECT_EQ(num_feasible_nodes_to_find(10, 99), 99U);
  EXPECT_EQ(num_feasible_nodes_to_find(0, 50), 50U);
  // numAllNodes × percentage / 100, truncated, at least 100.
  EXPECT_EQ(num_feasible_nodes_to_find(50, 1000), 500U);
  EXPECT_EQ(num_feasible_nodes_to_find(50, 100), 100U);   // 50 -> 100
  EXPECT_EQ(num_feasible_nodes_to_find(10, 999), 100U);   // 99 -> 100
  EXPECT_EQ(num_feasible_nodes_to_find(33, 1213), 400U);  // 400.29
  EXPECT_EQ(num_feasible_nodes_to_find(100, 1213), 1213U);
  // 0: adaptive, 50 − numAllNodes/125 (integer division), at least 5 percent.
  EXPECT_EQ(num_feasible_nodes_to_find(0, 100), 100U);     // 50% of 100 = 50 -> 100
  EXPECT_EQ(num_feasible_nodes_to_find(0, 1000), 420U);    // 50 − 8 = 42%
  EXPECT_EQ(num_feasible_nodes_to_find(0, 1213), 497U);    // 50 − 9 = 41%: 497.33
  EXPECT_EQ(num_feasible_nodes_to_find(0, 5000), 500U);    // 50 − 40 = 10%
  EXPECT_EQ(num_feasible_nodes_to_find(0, 6000), 300U);    // 50 − 48 = 2% -> 5%
  EXPECT_EQ(num_feasible_nodes_to_find(0, 20000), 1000U);  // 50 − 160 < 5 -> 5%
}

std::vector<NodeId> range(NodeId from, NodeId to) {
  std::vector<NodeId> v(to - from);
  std::iota(v.begin(), v.end(), from);
  return v;
}

std::vector<NodeId> evens(NodeId from, NodeId to) {
  std::vector<NodeId> v;
  for (NodeId n = from; n < to; ++n)
    if (n % 2 == 0) v.push_back(n);
  return v;
}

TEST(NodeSampling, ScanStartsWhereThePreviousStoppedAndStopsAtOneFeasibleTooMany) {
  // 400 nodes, the even ones feasible; 30%: 120 wanted.
  NodeSampling s(30);
  const auto all = range(0, 400);
  auto feasible = evens(0, 400);
  s.sample(all, feasible, 400, true);
  // Evens 0..238 kept; the odd 1..239 rejected on the way; node 240 (feasible, one too many)
  // cancels the search uncounted: processed 120 + 120.
  EXPECT_EQ(feasible, evens(0, 240));
  EXPECT_EQ(s.next_start(), 240U);
  feasible = evens(0, 400);
  s.sample(all, feasible, 400, true);
  // From 240: evens 240..398 (80), then around to 0..78 (40), in scan order; rejected the odd
  // 241..399 (80) and 1..79 (40): next start (240 + 240) mod 400.
  auto expected = evens(240, 400);
  for (const NodeId n : evens(0, 80)) expected.push_back(n);
  EXPECT_EQ(feasible, expected);
  EXPECT_EQ(s.next_start(), 80U);
}

TEST(NodeSampling, FewerFeasibleThanWantedScansEverythingAndKeepsTheStart) {
  NodeSampling s(0);  // 200 nodes: 50 − 1 = 49% = 98 -> 100 wanted
  const auto all = range(0, 200);
  auto feasible = range(0, 200);
  s.sample(all, feasible, 200, true);
  EXPECT_EQ(feasible, range(0, 100));
  EXPECT_EQ(s.next_start(), 100U);
  feasible = {3, 150, 199};  // in node order; kept in scan order
  s.sample(all, feasible, 200, true);
  EXPECT_EQ(feasible, (std::vector<NodeId>{150, 199, 3}));  // from 100, around
  EXPECT_EQ(s.next_start(), 100U);                          // all 200 processed
}

TEST(NodeSampling, StartIsKeptModuloAllNodesButIndexesThePreFilteredOnes) {
  // Pre-filters left nodes 0..149 of 300, all feasible; 50% of 150 = 75 -> 100 wanted.
  NodeSampling s(50);
  const auto scanned = range(0, 150);
  auto feasible = scanned;
  s.sample(scanned, feasible, 300, true);
  EXPECT_EQ(feasible, range(0, 100));
  EXPECT_EQ(s.next_start(), 100U);
  feasible = scanned;
  s.sample(scanned, feasible, 300, true);
  auto expected = range(100, 150);
  for (const NodeId n : range(0, 50)) expected.push_back(n);
  EXPECT_EQ(feasible, expected);
  EXPECT_EQ(s.next_start(), 200U);  // (100 + 100) mod 300, not mod 150
  feasible = scanned;
  s.sample(scanned, feasible, 300, true);
  EXPECT_EQ(feasible.front(), 50U);  // nodes[(200 + i) mod 150]
}

TEST(NodeSampling, WithoutScorersOneFeasibleNodeIsEnough) {
  NodeSampling s(50);
  const auto all = range(0, 400);
  auto feasible = evens(0, 400);
  s.sample(all, feasible, 400, false);
  EXPECT_EQ(feasible, (std::vector<NodeId>{0}));
  EXPECT_EQ(s.next_start(), 2U);  // node 0 kept, node 1 rejected, node 2 cancels
}

TEST(NodeSampling, OffByDefault) {
  EXPECT_FALSE(NodeSampling().active());
  EXPECT_TRUE(NodeSampling(0).active());
  EXPECT_TRUE(NodeSampling(99).active());
}

}  // namespace
}  // namespace slicelab
