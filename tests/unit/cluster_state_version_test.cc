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

}  // namespace
}  // namespace slicelab
