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

// The window ends at 100 s. Pods still waiting then: a pod whose limit passed before the end
// missed; one whose limit falls after the end is undecided and left out of the attainment.
TEST(SimRunAccounting, SloPodsLeftWaitingPastTheirLimitMissed) {
  AccountingFixture f;
  f.acc.start_at(0);
  f.acc.advance(100, f.sharing);
  const std::vector<PodSpec> pods = {
      testing::pod("late", 0, 10).slo_queue(50),     // pending 100 s > 50: missed
      testing::pod("young", 80, 10).slo_queue(50),   // pending 20 s, limit at 130 s: undecided
      testing::pod("slow", 0, 500).slo_jct(60),      // running, 100 s > 60: missed
      testing::pod("fine", 0, 500).slo_jct(200),     // running, limit at 200 s: undecided
      testing::pod("queued", 0, 500).slo_queue(30),  // running, started at 40 > 30: missed
      testing::pod("never", 0, 10).slo_queue(1000),  // unschedulable: missed whatever the limit
      testing::pod("done", 0, 10).slo_queue(5),      // completed at once: met
      testing::pod("edge", 50, 10).slo_queue(50),    // pending exactly 50 s: undecided
  };
  std::vector<PodOutcome> out(pods.size());
  out[2].status = out[3].status = out[4].status = PodStatus::kRunning;
  out[2].start_s = out[3].start_s = 0;
  out[4].start_s = 40;
  out[5].status = PodStatus::kUnschedulable;
  out[6].status = PodStatus::kCompleted;
  out[6].start_s = 0;
  out[6].finish_s = 10;
  const RunSummary s = f.acc.summarize(pods, out, ReasonTable(), f.sharing);
  EXPECT_EQ(s.slo_pods, 8U);
  EXPECT_EQ(s.slo_met, 1U);
  EXPECT_EQ(s.slo_undecided, 3U);
  ASSERT_TRUE(s.slo_attainment.has_value());
  EXPECT_DOUBLE_EQ(*s.slo_attainment, 1.0 / 5.0);  // met / (8 - 3)
}

}  // namespace
}  // namespace slicelab
