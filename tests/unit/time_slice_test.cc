// Pins down time-slice sharing: TimeSlice::rates on hand-computed cases, the finish times the
// engine derives from them, and out-of-memory failures (no memory isolation) versus whole-card.
#include "sim/modes/time_slice/time_slice.h"
#include "sim/sharing/gpu_rate_solver.h"

#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <vector>

#include "sim/modes/mode_registry.h"
#include "sim/modes/whole_card/whole_card.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::gpus_of;
using testing::node_group;
using testing::one_gpu;
using testing::pod;
using testing::run;
using testing::time_slice;
using testing::whole_card;

std::vector<double> rates_of(const SharingMode& mode, const std::vector<double>& sm_demands) {
  std::vector<TenantLoad> loads;
  for (const double d : sm_demands) loads.push_back({d, 0});
  std::vector<double> out(loads.size(), -1.0);
  std::vector<double> err(loads.size());
  solve_gpu_rates(mode, loads, out, err);
  return out;
}

// --- the rate model ---

TEST(SimTimeSliceRates, DemandWithinTheGpuRunsAtSoloSpeed) {
  const TimeSlice ts(4, 0.1);
  // 0.25 + 0.75 = 1: not oversubscribed, so no switch overhead either.
  for (const double r : rates_of(ts, {0.25, 0.75})) EXPECT_DOUBLE_EQ(r, 1.0);
  for (const double r : rates_of(ts, {0.25, 0.25, 0.25})) EXPECT_DOUBLE_EQ(r, 1.0);
  for (const double r : rates_of(ts, {1.0})) EXPECT_DOUBLE_EQ(r, 1.0);
}

TEST(SimTimeSliceRates, TwoWholeGpuPodsWithOverheadGetFortyFivePercent) {
  // Demand 2 > 1: max-min fair shares of 1 - 0.1 = 0.9 are 0.45 each; rate = 0.45 / 1.
  const TimeSlice ts(2, 0.1);
  const auto r = rates_of(ts, {1.0, 1.0});
  EXPECT_NEAR(r[0], 0.45, 1e-15);
  EXPECT_NEAR(r[1], 0.45, 1e-15);
}

TEST(SimTimeSliceRates, UnequalDemandsWithoutOverhead) {
  // {0.2, 0.9} on 1.0: shares {0.2, 0.8}; rates {0.2/0.2, 0.8/0.9} = {1, 0.888...}.
  const TimeSlice ts(2, 0.0);
  const auto r = rates_of(ts, {0.2, 0.9});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_NEAR(r[1], 8.0 / 9.0, 1e-15);
}

TEST(SimTimeSliceRates, UnequalDemandsWithOverhead) {
  // {0.2, 0.9} on 0.9: 0.2 <= 0.45 is met, 0.7 is left for 0.9; rates {1, 0.7/0.9 = 7/9}.
  const TimeSlice ts(2, 0.1);
  const auto r = rates_of(ts, {0.2, 0.9});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_NEAR(r[1], 7.0 / 9.0, 1e-15);
}

TEST(SimTimeSliceRates, ZeroDemandTenantRunsAtSoloSpeed) {
  // {0, 1, 1} sums to 2: shares {0, 0.5, 0.5}; a zero-demand tenant is not slowed.
  const TimeSlice ts(3, 0.0);
  const auto r = rates_of(ts, {0.0, 1.0, 1.0});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_DOUBLE_EQ(r[1], 0.5);
  EXPECT_DOUBLE_EQ(r[2], 0.5);
}

TEST(SimTimeSliceRates, ModeFacts) {
  const TimeSlice ts(4, 0.05);
  EXPECT_EQ(ts.kind(), "time-slice");
  EXPECT_EQ(ts.describe(), "time-slice (4 replicas, 5% switch overhead)");
  EXPECT_EQ(ts.capacity_units(), 4);
  EXPECT_EQ(ts.claim_units(250), 1);  // a replica per pod, whatever its share
  EXPECT_EQ(ts.claim_units(1000), 1);
  EXPECT_EQ(ts.max_tenants(), 4);
  EXPECT_FALSE(ts.isolates_memory());

  const WholeCard wc;
  EXPECT_EQ(wc.capacity_units(), 1);
  EXPECT_EQ(wc.claim_units(250), 1);
  EXPECT_EQ(wc.max_tenants(), 1);
  EXPECT_TRUE(wc.isolates_memory());
  for (const double r : rates_of(wc, {0.3})) EXPECT_DOUBLE_EQ(r, 1.0);
}

TEST(SimTimeSliceRates, FactoryBuildsTheConfiguredMode) {
  const auto ts = make_sharing_mode(testing::time_slice(3, 0.2));
  EXPECT_EQ(ts->kind(), "time-slice");
  EXPECT_EQ(ts->capacity_units(), 3);
  EXPECT_EQ(ts->describe(), "time-slice (3 replicas, 20% switch overhead)");
  EXPECT_EQ(make_sharing_mode(SharingConfig{})->kind(), "whole-card");
  SharingConfig unknown;
  unknown.kind = "sriov";
  EXPECT_THROW(make_sharing_mode(unknown), std::invalid_argument);
  SharingConfig mig_without_settings;  // a mode's settings come from the scenario reader
  mig_without_settings.kind = "mig";
  EXPECT_THROW(make_sharing_mode(mig_without_settings), std::invalid_argument);
}

// --- finish times in the engine (one A100-80GB GPU unless said) ---

TEST(SimTimeSliceEngine, TwoWholeGpuPodsShareAndBothFinishAtTwiceTheirDuration) {
  // Rate 0.5 each from t=0: 100 s of work takes 200 s.
  const auto r =
      run(one_gpu(), {pod("a", 0, 100), pod("b", 0, 100)}, "first-fit", time_slice(2, 0.0));
  ASSERT_EQ(r.pods[0].status, PodStatus::kCompleted);
  ASSERT_EQ(r.pods[1].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 0.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 200.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 200.0);
  EXPECT_DOUBLE_EQ(r.pods[0].solo_s, 100.0);
  EXPECT_DOUBLE_EQ(r.summary.slowdown.max, 2.0);
}

TEST(SimTimeSliceEngine, OverheadSlowsBothTenants) {
  // Rate 0.45 each: 90 s of work takes 90 / 0.45 = 200 s.
  const auto r =
      run(one_gpu(), {pod("a", 0, 90), pod("b", 0, 90)}, "first-fit", time_slice(2, 0.1));
  EXPECT_NEAR(r.pods[0].finish_s, 200.0, 1e-9);
  EXPECT_NEAR(r.pods[1].finish_s, 200.0, 1e-9);
}

TEST(SimTimeSliceEngine, ATenantLeavingSpeedsUpTheOther) {
  // a: 50 s, b: 100 s, both at rate 0.5. a finishes at 100 (50 / 0.5); b has done 50 by then
  // and runs its last 50 s alone at rate 1: finishes at 150.
  const auto r =
      run(one_gpu(), {pod("a", 0, 50), pod("b", 0, 100)}, "first-fit", time_slice(2, 0.0));
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 150.0);
}

TEST(SimTimeSliceEngine, AnArrivalSlowsTheTenantAlreadyRunning) {
  // a alone at rate 1 over [0, 50): 50 left. b joins at 50: both at 0.5. a finishes at
  // 50 + 50 / 0.5 = 150; b has done 50 by then, 50 left alone: 200.
  const auto r =
      run(one_gpu(), {pod("a", 0, 100), pod("b", 50, 100)}, "first-fit", time_slice(2, 0.0));
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 150.0);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 50.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 200.0);
}

TEST(SimTimeSliceEngine, ThreeTenantsComingAndGoing) {
  // [0, 30): a, b at 1/2 -> each has 60 - 15 = 45 left.
  // [30, ...): a, b, c at 1/3. c (30 s) would end at 30 + 90 = 120; a, b at 30 + 135 = 165.
  // So c ends at 120; a and b have 45 - 90/3 = 15 left each, at 1/2: end at 150.
  const auto r = run(one_gpu(), {pod("a", 0, 60), pod("b", 0, 60), pod("c", 30, 30)}, "first-fit",
                     time_slice(3, 0.0));
  EXPECT_NEAR(r.pods[2].finish_s, 120.0, 1e-9);
  EXPECT_NEAR(r.pods[0].finish_s, 150.0, 1e-9);
  EXPECT_NEAR(r.pods[1].finish_s, 150.0, 1e-9);
}

TEST(SimTimeSliceEngine, FractionalDemandsUseMaxMinFairShares) {
  // a: 200 milli, 100 s; b: 900 milli, 80 s. Rates {1, 8/9}: a ends at 100, b at 80 * 9/8 = 90.
  const auto r = run(one_gpu(), {pod("a", 0, 100).milli(200), pod("b", 0, 80).milli(900)},
                     "first-fit", time_slice(2, 0.0));
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_NEAR(r.pods[1].finish_s, 90.0, 1e-9);
}

TEST(SimTimeSliceEngine, SharesThatFitTogetherRunAtSoloSpeed) {
  // 500 + 500 milli = one GPU: no slowdown, no overhead.
  const auto r = run(one_gpu(), {pod("a", 0, 100).milli(500), pod("b", 0, 60).milli(500)},
                     "first-fit", time_slice(2, 0.1));
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 60.0);
}

TEST(SimTimeSliceEngine, ReplicasCapTheTenantsPerGpu) {
  // Two replicas: the third pod waits for a free replica (a ends at 100 at rate 0.5).
  const auto r = run(one_gpu(), {pod("a", 0, 50), pod("b", 0, 100), pod("c", 0, 10)}, "first-fit",
                     time_slice(2, 0.0));
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 100.0);
  // [100, ...): b (50 left) and c (10) at 0.5: c ends at 120; b has 40 left alone: 160.
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 120.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 160.0);
}

TEST(SimTimeSliceEngine, MultiGpuPodMovesAtThePaceOfItsSlowestGpu) {
  // Two GPUs, first-fit. p (2 GPUs, 100 s) on GPUs 0 and 1; q (1 GPU, 50 s) joins GPU 0.
  // GPU 0 gives each 0.5, so p moves at min(0.5, 1) = 0.5. q ends at 100; p has done 50 and
  // finishes the other 50 at rate 1: 150.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
                     {pod("p", 0, 100).gpus(2), pod("q", 0, 50)}, "first-fit", time_slice(2, 0.0));
  EXPECT_EQ(gpus_of(r, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(gpus_of(r, 1), (std::vector<int>{0}));
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 150.0);
}

TEST(SimTimeSliceEngine, MultiGpuPodSlowedElsewhereUsesLessOfItsOtherGpu) {
  // Same cluster as above. Until 100 s: GPU 0 runs p and q at 0.5 each (SM 1.0); GPU 1 runs
  // only p, which moves at 0.5, so GPU 1 delivers 0.5, not 1. From 100 to 150 s p runs alone
  // on both: 1.0 each. SM-seconds = (1.0 + 0.5) * 100 + (1 + 1) * 50 = 250 over 2 GPUs x 150 s.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
                     {pod("p", 0, 100).gpus(2), pod("q", 0, 50)}, "first-fit", time_slice(2, 0.0));
  EXPECT_DOUBLE_EQ(r.summary.sm_utilization, 250.0 / 300.0);
  ASSERT_EQ(r.summary.per_model.size(), 1U);
  EXPECT_DOUBLE_EQ(r.summary.per_model[0].sm_utilization, 250.0 / 300.0);
}

// --- out of memory ---

TEST(SimTimeSliceMemory, NewcomerThatOverfillsTheGpuFailsAndNeighboursAreUnaffected) {
  // A100-80GB: 81920 MiB. a holds 50000. b asks 40000 at t=10: 90000 > 81920, b fails at start.
  // b is a whole-GPU pod: had it joined, a would have slowed to 0.5; a still ends at 100.
  // c asks 31920 at t=20: exactly 81920, which fits; c and a (500 milli each) share at rate 1.
  const auto r = run(one_gpu(),
                     {pod("a", 0, 100).milli(500).gpu_mem(50000), pod("b", 10, 100).gpu_mem(40000),
                      pod("c", 20, 100).milli(500).gpu_mem(31920)},
                     "first-fit", time_slice(4, 0.0));
  const PodOutcome& b = r.pods[1];
  EXPECT_EQ(b.status, PodStatus::kFailed);
  EXPECT_EQ(r.reason_of(1),
            "out of memory on n-0 GPU 0: needs 40000 MiB, neighbours hold 50000 of 81920 MiB");
  EXPECT_DOUBLE_EQ(b.start_s, 10.0);
  EXPECT_DOUBLE_EQ(b.finish_s, 10.0);
  EXPECT_TRUE(gpus_of(r, 1).empty());

  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_EQ(r.pods[2].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 20.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 120.0);

  EXPECT_EQ(r.summary.failed, 1U);
  EXPECT_EQ(r.summary.completed, 2U);
  EXPECT_EQ(r.summary.not_placed_reasons.at("out of memory (neighbours hold the GPU's memory)"),
            1U);
  // The failed pod counts in neither queueing delay nor JCT.
  EXPECT_EQ(r.summary.queue_delay_s.count, 2U);
  EXPECT_EQ(r.summary.jct_s.count, 2U);
}

TEST(SimTimeSliceMemory, FailedPodReleasesItsReplicaAndMemory) {
  // Two replicas. a holds 70000 MiB; b (20000) overfills and fails at t=1; c (10000) at t=2
  // still finds b's replica and memory free: 80000 <= 81920.
  const auto r = run(one_gpu(),
                     {pod("a", 0, 100).milli(500).gpu_mem(70000), pod("b", 1, 10).gpu_mem(20000),
                      pod("c", 2, 10).milli(500).gpu_mem(10000)},
                     "first-fit", time_slice(2, 0.0));
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[2].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 2.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 12.0);
}

TEST(SimTimeSliceMemory, MultiGpuPodFailsOnTheGpuThatOverflowsAndNamesIt) {
  // Spread puts a (1000 MiB) on GPU 0 and x (70000 MiB) on the emptier GPU 1. p asks 20000 MiB
  // on both GPUs: GPU 0 holds 21000, GPU 1 would hold 90000 > 81920 -> p fails, naming GPU 1.
  const auto r =
      run(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
          {pod("a", 0, 100).milli(500).gpu_mem(1000), pod("x", 0, 100).milli(500).gpu_mem(70000),
           pod("p", 5, 100).gpus(2).gpu_mem(20000)},
          "spread", time_slice(2, 0.0));
  EXPECT_EQ(gpus_of(r, 0), (std::vector<int>{0}));
  EXPECT_EQ(gpus_of(r, 1), (std::vector<int>{1}));
  EXPECT_EQ(r.pods[2].status, PodStatus::kFailed);
  EXPECT_EQ(r.reason_of(2),
            "out of memory on n-0 GPU 1: needs 20000 MiB, neighbours hold 70000 of 81920 MiB");
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 100.0);
}

TEST(SimTimeSliceMemory, WholeCardNeverRunsOutOfMemoryItQueuesInstead) {
  // The same pods as above on whole cards: one pod per GPU, so b and c wait their turn.
  const auto r = run(one_gpu(),
                     {pod("a", 0, 100).milli(500).gpu_mem(50000), pod("b", 10, 100).gpu_mem(40000),
                      pod("c", 20, 100).milli(500).gpu_mem(31920)},
                     "first-fit", whole_card());
  for (const auto& o : r.pods) EXPECT_EQ(o.status, PodStatus::kCompleted);
  EXPECT_EQ(r.summary.failed, 0U);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 200.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 300.0);
}

}  // namespace
}  // namespace slicelab
