// Pins down ClusterState::version: it changes with every bind and unbind on its node and on no
// other node, so caches keyed by it (FGD scores, placement indexes) are invalidated exactly.
#include <gtest/gtest.h>

#include <vector>

#include "sim/cluster_state.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

TEST(ClusterStateVersion, ChangesOnBindAndUnbindOfItsNodeOnly) {
  const ClusterState fresh(testing::cluster_of({testing::node_group("n", 2, "A100-80GB", 2)}),
                           testing::catalog(), 1);
  ClusterState s = fresh;
  EXPECT_EQ(s.version(0), s.version(1));
  const PodRequest req = testing::request(1, 1000, 1024);
  const std::vector<GpuId> gpus{s.first_gpu(1)};
  const uint64_t before0 = s.version(0);
  const uint64_t before1 = s.version(1);
  s.bind(1, gpus, req);
  EXPECT_EQ(s.version(0), before0);
  const uint64_t bound = s.version(1);
  EXPECT_NE(bound, before1);
  // Back to the same free resources is still a new version: a key of (node, version) never
  // names two different histories, and no cache needs to compare states.
  s.unbind(1, gpus, req);
  EXPECT_NE(s.version(1), bound);
  EXPECT_NE(s.version(1), before1);
  EXPECT_EQ(s.version(0), before0);
  // A CPU-only pod changes the node too (free CPU is part of every score).
  const PodRequest cpu_only = testing::request(0, 500, 0);
  const uint64_t v = s.version(0);
  s.bind(0, {}, cpu_only);
  EXPECT_NE(s.version(0), v);
}

// The GPUs of node n are [first_gpu(n), first_gpu(n + 1)) for every node, the last included
// (MIG's and vGPU's per-node loops rely on it), and the per-node record keeps each node's own.
TEST(ClusterStateLayout, EveryNodesGpusAreARangeUpToTheNextNodesFirst) {
  const ClusterState s(testing::cluster_of({testing::node_group("a", 2, "A100-80GB", 2),
                                            testing::node_group("b", 1, "A100-80GB", 4)}),
                       testing::catalog(), 1000);
  ASSERT_EQ(s.node_count(), 3U);
  EXPECT_EQ(s.first_gpu(0), 0U);
  EXPECT_EQ(s.first_gpu(1), 2U);
  EXPECT_EQ(s.first_gpu(2), 4U);
  EXPECT_EQ(s.first_gpu(3), 8U);  // node_count(): gpu_count()
  EXPECT_EQ(s.gpu_count(), 8U);
  for (NodeId n = 0; n < 3; ++n) {
    EXPECT_EQ(static_cast<int>(s.first_gpu(n + 1) - s.first_gpu(n)), s.gpus_on(n));
    EXPECT_EQ(s.idle_gpus(n), s.gpus_on(n));
    EXPECT_EQ(s.free_units(n), 1000 * s.gpus_on(n));
    for (GpuId g = s.first_gpu(n); g < s.first_gpu(n + 1); ++g) EXPECT_EQ(s.node_of(g), n);
  }
}

}  // namespace
}  // namespace slicelab
