// Pins down RunAccounting: time integrals of usage and allocation per GPU model, the first
// failure, samples and the fill experiment's figures.
#include "sim/engine/run_accounting.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::model_index;
using testing::node_group;

struct AccountingFixture {
  explicit AccountingFixture(bool fill = false)
      : cluster(cluster_of({node_group("n", 1, "A100-80GB", 2)}), catalog(), 1),
        acc(cluster, catalog(), {}, 2, fill) {}
  ClusterState cluster;
  RunAccounting acc;
  SharingRun sharing;
};

TEST(SimRunAccounting, UsageAndAllocationIntegrateOverTheWindow) {
  AccountingFixture f;
  f.acc.start_at(100);
  // 0..100 s after the start: GPU 0 at SM 0.5, memory 0.25; one GPU allocated.
  f.acc.set_gpu_usage(0, 0.5, 0.25);
  f.acc.allocation_changed(static_cast<uint16_t>(model_index("A100-80GB")), 1.0);
  f.acc.advance(200, f.sharing);
  // 200..300 s: GPU 1 joins at SM 1; the allocation goes back to 0.
  f.acc.set_gpu_usage(1, 1.0, 0.0);
  f.acc.allocation_changed(static_cast<uint16_t>(model_index("A100-80GB")), -1.0);
  f.acc.advance(300, f.sharing);
  const RunSummary s = f.acc.summarize({}, {}, ReasonTable(), f.sharing);
  EXPECT_DOUBLE_EQ(s.window_start_s, 100.0);
  EXPECT_DOUBLE_EQ(s.window_end_s, 300.0);
  // SM: (0.5 x 200 + 1 x 100) GPU-s over 2 GPUs x 200 s = 0.5; memory 0.25 x 200 / 400.
  EXPECT_DOUBLE_EQ(s.sm_utilization, 0.5);
  EXPECT_DOUBLE_EQ(s.memory_utilization, 0.125);
  ASSERT_EQ(s.per_model.size(), 1U);
  EXPECT_DOUBLE_EQ(s.per_model[0].allocation_ratio, 100.0 / 400.0);
  EXPECT_DOUBLE_EQ(s.per_model[0].gpu_hours_provisioned, 400.0 / 3600.0);
  EXPECT_DOUBLE_EQ(s.per_model[0].gpu_hours_allocated, 100.0 / 3600.0);
}

TEST(SimRunAccounting, FirstFailureIsTheEarliestOne) {
  AccountingFixture f;
  f.acc.start_at(0);
  f.acc.advance(10, f.sharing);
  f.acc.placement_failed();
  f.acc.advance(20, f.sharing);
  f.acc.placement_failed();
  const RunSummary s = f.acc.summarize({}, {}, ReasonTable(), f.sharing);
  ASSERT_TRUE(s.first_failure_s.has_value());
  EXPECT_DOUBLE_EQ(*s.first_failure_s, 10.0);
  EXPECT_DOUBLE_EQ(s.allocation_ratio_at_first_failure.value_or(-1), 0.0);
}

TEST(SimRunAccounting, SamplesReadTheStateNow) {
  AccountingFixture f;
  f.acc.set_gpu_usage(0, 0.5, 0);
  f.acc.take_sample(5, 3, 2);
  ASSERT_EQ(f.acc.samples().size(), 1U);
  const Sample& s = f.acc.samples()[0];
  EXPECT_DOUBLE_EQ(s.time_s, 5.0);
  EXPECT_DOUBLE_EQ(s.sm_utilization, 0.25);  // 0.5 over 2 GPUs
  EXPECT_EQ(s.running, 3U);
  EXPECT_EQ(s.pending, 2U);
}

TEST(SimRunAccounting, FillFiguresAtFullAreThePointsAtOneHundredPercent) {
  // Two GPUs; demand arrives 1 GPU at a time: 50% (served), 100% (failed), 150% (failed).
  AccountingFixture f(true);
  f.acc.fill_arrival(1.0, true);
  f.acc.fill_arrival(1.0, false);
  f.acc.fill_arrival(1.0, false);
  const RunSummary s = f.acc.summarize({}, {}, ReasonTable(), f.sharing);
  ASSERT_TRUE(s.fill.has_value());
  // At 100% only the second point: 1 GPU failed of 2. At the end: 3 arrived, 2 failed.
  EXPECT_DOUBLE_EQ(s.fill->failed_at_full, 0.5);
  EXPECT_DOUBLE_EQ(s.fill->arrived_at_end, 1.5);
  EXPECT_DOUBLE_EQ(s.fill->failed_at_end, 1.0);
  EXPECT_EQ(f.acc.take_fill_curve().size(), 3U);
}

}  // namespace
}  // namespace slicelab
