// Pins down the gpu-share sharing mode: 1000 units per GPU, claims rounded up to 16 milli,
// shares summing to 1000 co-located on one GPU at full speed, and nothing beyond capacity.
#include <gtest/gtest.h>

#include <vector>

#include "sim/modes/gpu_share/gpu_share.h"
#include "sim/modes/mode_registry.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::pod;

TEST(GpuShareMode, UnitsAndClaimRounding) {
  const auto mode = make_sharing_mode(testing::gpu_share());
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(mode->kind(), "gpu-share");
  EXPECT_EQ(mode->capacity_units(), 1000);
  EXPECT_EQ(mode->max_tenants(), 64);
  EXPECT_FALSE(mode->isolates_memory());
  // ceil(1000 / 64) = 16: smaller shares claim 16, larger ones their own milli.
  EXPECT_EQ(GpuShare::kMinClaim, 16);
  EXPECT_EQ(mode->claim_units(1), 16);
  EXPECT_EQ(mode->claim_units(5), 16);
  EXPECT_EQ(mode->claim_units(15), 16);
  EXPECT_EQ(mode->claim_units(16), 16);
  EXPECT_EQ(mode->claim_units(17), 17);
  EXPECT_EQ(mode->claim_units(500), 500);
  EXPECT_EQ(mode->claim_units(1000), 1000);
}

TEST(GpuShareMode, EveryTenantRunsAtRateOne) {
  const auto mode = make_sharing_mode(testing::gpu_share());
  const std::vector<TenantLoad> tenants = {{0.3, 100}, {0.7, 200}, {1.0, 0}};
  std::vector<double> out(3, -1.0);
  std::vector<double> err(3);
  solve_gpu_rates(*mode, tenants, out, err);
  EXPECT_EQ(out, (std::vector<double>{1.0, 1.0, 1.0}));
}

TEST(GpuShareMode, SharesSummingTo1000CoLocateAtFullSpeed) {
  // One 1-GPU node. 300 + 700 = 1000: both start at 0 on GPU0 and finish after their
  // duration (rate 1), unlike time-slicing.
  const auto cluster = cluster_of({node_group("n", 1, "A100-80GB", 1)});
  const std::vector<PodSpec> pods = {pod("a", 0, 10).milli(300), pod("b", 0, 20).milli(700)};
  const RunResult r = testing::run(cluster, pods, "best-fit", testing::gpu_share());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.pods[i].status, PodStatus::kCompleted) << i;
    EXPECT_DOUBLE_EQ(r.pods[i].start_s, 0.0) << i;
    EXPECT_EQ(testing::gpus_of(r, i), std::vector<int>{0}) << i;
  }
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 10.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 20.0);
  // 300 + 701 > 1000: the second waits for the first to finish at 10, then runs 20 s.
  const std::vector<PodSpec> over = {pod("a", 0, 10).milli(300), pod("b", 0, 20).milli(701)};
  const RunResult r2 = testing::run(cluster, over, "best-fit", testing::gpu_share());
  EXPECT_DOUBLE_EQ(r2.pods[1].start_s, 10.0);
  EXPECT_DOUBLE_EQ(r2.pods[1].finish_s, 30.0);
}

TEST(GpuShareMode, TinySharesClaimSixteen) {
  // 63 pods of 5 milli on one GPU: each claims 16, 62 * 16 = 992 and a 63rd would need 1008
  // > 1000, so it waits for the others to finish at 10. (Unrounded, 63 * 5 = 315 would fit.)
  const auto cluster = cluster_of({node_group("n", 1, "A100-80GB", 1)});
  std::vector<PodSpec> pods;
  for (int i = 0; i < 63; ++i) pods.push_back(pod("p", 0, 10).milli(5));
  const RunResult r = testing::run(cluster, pods, "best-fit", testing::gpu_share());
  for (size_t i = 0; i < 62; ++i) EXPECT_DOUBLE_EQ(r.pods[i].start_s, 0.0) << i;
  EXPECT_DOUBLE_EQ(r.pods[62].start_s, 10.0);
  EXPECT_DOUBLE_EQ(r.pods[62].finish_s, 20.0);
}

}  // namespace
}  // namespace slicelab
