// Pins down RetryShortcut: an attempt is worth a cycle only after a node was freed, a retry looks
// only at the nodes freed since its pod failed when they are few, and the log of freed nodes
// stays bounded over a long run without changing which nodes a retry sees.
#include "sim/engine/retry_shortcut.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::node_group;

// 40 one-GPU nodes: a retry narrows when fewer than 40 / 4 = 10 nodes were freed since.
struct RetryFixture {
  RetryFixture()
      : cluster(cluster_of({node_group("n", 40, "A100-80GB", 1)}), catalog(), 1000),
        retry(4, cluster.node_count()) {}
  // The nodes pod `p`'s retry looks at, from `nodes` (all of them by default); empty with
  // false returned when it need not look at all.
  std::pair<bool, std::vector<NodeId>> narrow(uint32_t p, std::vector<NodeId> nodes) {
    SchedulingCycle cycle{cluster, req, p, 0.0, rng};
    const bool go = retry.pre_filter(cycle, nodes);
    return {go, nodes};
  }
  std::vector<NodeId> all() const {
    std::vector<NodeId> n(cluster.node_count());
    std::iota(n.begin(), n.end(), NodeId{0});
    return n;
  }

  ClusterState cluster;
  RetryShortcut retry;
  PodRequest req;
  Rng rng{1};
};

TEST(SimRetryShortcut, AFailedPodIsWorthTryingOnlyAfterANodeIsFreed) {
  RetryFixture f;
  EXPECT_TRUE(f.retry.worth_trying(0));  // never tried
  f.retry.attempt_failed(0);
  EXPECT_FALSE(f.retry.worth_trying(0));
  EXPECT_FALSE(f.narrow(0, f.all()).first);
  f.retry.node_freed(3);
  EXPECT_TRUE(f.retry.worth_trying(0));
  EXPECT_TRUE(f.retry.worth_trying(1));  // another pod, never tried
}

TEST(SimRetryShortcut, FewFreedNodesNarrowTheRetryManyDoNot) {
  RetryFixture f;
  f.retry.attempt_failed(0);
  for (const NodeId n : {7, 3, 7}) f.retry.node_freed(n);
  // Three freed (node 7 twice) of the 10 below which it narrows: nodes 3 and 7, ascending.
  auto [go, nodes] = f.narrow(0, f.all());
  EXPECT_TRUE(go);
  EXPECT_EQ(nodes, (std::vector<NodeId>{3, 7}));
  // Seven more: 10 freed since, so every node is scanned.
  for (NodeId n = 10; n < 17; ++n) f.retry.node_freed(n);
  EXPECT_EQ(f.narrow(0, f.all()).second, f.all());
  // A pod never tried scans every node.
  EXPECT_EQ(f.narrow(1, f.all()).second, f.all());
}

TEST(SimRetryShortcut, ANarrowedInputKeepsOnlyWhatBothAllow) {
  // An earlier pre-filter left nodes 0..19 (a quarter: 5); nodes 3 and 25 were freed since.
  RetryFixture f;
  f.retry.attempt_failed(0);
  f.retry.node_freed(25);
  f.retry.node_freed(3);
  std::vector<NodeId> first_half(20);
  std::iota(first_half.begin(), first_half.end(), NodeId{0});
  auto [go, nodes] = f.narrow(0, first_half);
  EXPECT_TRUE(go);
  EXPECT_EQ(nodes, (std::vector<NodeId>{3}));
}

TEST(SimRetryShortcut, TheLogStaysBoundedAndRetriesStillSeeTheirFreedNodes) {
  RetryFixture f;
  f.retry.attempt_failed(0);  // before all of it: a full scan later
  for (int i = 0; i < 10000; ++i) f.retry.node_freed(static_cast<NodeId>(i % 40));
  // Kept: 10 entries (a quarter of the nodes), held up to twice that plus 64 between trims.
  EXPECT_LE(f.retry.log_size(), 2U * 10U + 64U);
  f.retry.attempt_failed(1);
  for (const NodeId n : {9, 5, 38}) f.retry.node_freed(n);
  EXPECT_EQ(f.narrow(1, f.all()).second, (std::vector<NodeId>{5, 9, 38}));
  EXPECT_EQ(f.narrow(0, f.all()).second, f.all());
  // Right after a trim too: fill to the trim point, fail pod 2, free two nodes.
  while (f.retry.log_size() != 10U) f.retry.node_freed(0);
  f.retry.attempt_failed(2);
  f.retry.node_freed(12);
  f.retry.node_freed(4);
  EXPECT_EQ(f.narrow(2, f.all()).second, (std::vector<NodeId>{4, 12}));
}

}  // namespace
}  // namespace slicelab
