// The multi-GPU rate rule end to end: a pod on several GPUs is one variable of one solver
// problem, so the share it cannot use on one GPU goes to its neighbours on the others.
#include <gtest/gtest.h>

#include <vector>

#include "sim/engine/engine.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::gpus_of;
using testing::node_group;
using testing::pod;
using testing::quiet_config;
using testing::time_slice;

TEST(SimEngineMultiGpu, NeighbourOnTheOtherGpuGetsTheShareTheSlowedPodLeaves) {
  // One node, 2 A100s, time-slice with 3 replicas and no switch overhead; all pods arrive at 0
  // with demand 1 (whole-GPU pods) and run 100 s alone. First-fit puts B1 and B2 on GPU 0, the
  // 2-GPU pod A on GPUs 0 and 1, C on GPU 1.
  //   GPU 0: A, B1, B2 share it: 1/3 each, so A progresses at 1/3 (its slowest GPU).
  //   GPU 1: A uses only its 1/3 there; C gets the other 2/3 (per GPU it got 1/2).
  // C: 100 s at 2/3 -> finishes at 150 (200 under the per-GPU rule). Then GPU 1 holds A alone,
  // still held to 1/3 by GPU 0: A, B1, B2 all finish at 100 / (1/3) = 300.
  const auto r = testing::run(
      cluster_of({node_group("n", 1, "A100-80GB", 2)}),
      {pod("B1", 0, 100), pod("B2", 0, 100), pod("A", 0, 100).gpus(2), pod("C", 0, 100)},
      "first-fit", time_slice(3, 0.0), quiet_config());
  ASSERT_EQ(gpus_of(r, 0), (std::vector<int>{0}));
  ASSERT_EQ(gpus_of(r, 1), (std::vector<int>{0}));
  ASSERT_EQ(gpus_of(r, 2), (std::vector<int>{0, 1}));
  ASSERT_EQ(gpus_of(r, 3), (std::vector<int>{1}));
  EXPECT_NEAR(r.pods[3].finish_s, 150.0, 1e-9);
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_NEAR(r.pods[p].finish_s, 300.0, 1e-9) << p;
  }
  // Both GPUs deliver all their time until 150 s; then GPU 1 delivers A's 1/3 until 300 s:
  // SM utilisation over the window = (2 x 150 + 150 + 150 / 3) / (2 x 300) = 500 / 600.
  EXPECT_NEAR(r.summary.sm_utilization, 500.0 / 600.0, 1e-12);
}

}  // namespace
}  // namespace slicelab
