// Pins down MIG in the engine with hand-computed runs: instance rates (SMs of the instance over
// the pod's demand of the GPU's SMs), OOM in a too small instance, stranded capacity, and a
// forced dynamic re-partitioning that delays the pod by exactly reconfigure_s and is charged.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/modes/mig/mig_settings.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::pod;
using testing::quiet_config;
using testing::run;

SharingConfig mig_static(std::vector<std::pair<std::string, int>> devices) {
  auto s = std::make_shared<MigSettings>();
  s->layout = "test";
  MigDeviceRule rule;
  rule.mig_devices = std::move(devices);
  s->rules.push_back(rule);
  SharingConfig c;
  c.kind = "mig";
  c.set_mode_settings(s);
  return c;
}

SharingConfig mig_dynamic(double reconfigure_s) {
  auto s = std::make_shared<MigSettings>();
  s->dynamic = true;
  s->reconfigure_s = reconfigure_s;
  SharingConfig c;
  c.kind = "mig";
  c.set_mode_settings(s);
  return c;
}

PodSpec with_profile(PodSpec p, std::string profile) {
  p.mig_profile = std::move(profile);
  return p;
}

ClusterSpec one_a100() {
  return cluster_of({node_group("n", 1, "A100-80GB", 1)});
}

constexpr int64_t kGi = 1024;

TEST(MigEngine, StaticLayoutRunsEachPodAtItsInstanceShare) {
  // Layout on the one A100-80GB (108 SMs): 1g.10gb x2 (14 SMs), 2g.20gb (28), 3g.40gb (42).
  // small: 100 milli, 5 GiB -> 1g.10gb; rate min(1, 14/108 / 0.1) = 1 -> ends at 100.
  // whole: mig_profile 3g.40gb, demand 1 -> rate 42/108 -> ends at 100 * 108/42.
  // mid: 200 milli, 15 GiB -> 2g.20gb; min(1, 28/108 / 0.2) = 1 -> 50 s.
  // late: 300 milli, 10 GiB -> 3g.40gb (2g is 285 milli), held by whole: starts when whole ends.
  const auto r =
      run(one_a100(),
          {pod("small", 0, 100).milli(100).gpu_mem(5 * kGi),
           with_profile(pod("whole", 0, 100), "3g.40gb"),
           pod("mid", 0, 50).milli(200).gpu_mem(15 * kGi),
           pod("late", 1, 100).milli(300).gpu_mem(10 * kGi)},
          "best-fit", mig_static({{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}), []() {
            EngineConfig c = quiet_config();
            c.backfill = true;
            return c;
          }());
  EXPECT_EQ(r.sharing, "mig (layout test)");
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  const double whole_end = 100.0 * 108.0 / 42.0;
  EXPECT_NEAR(r.pods[1].finish_s, whole_end, 1e-9);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 50.0);
  EXPECT_NEAR(r.pods[3].start_s, whole_end, 1e-9);
  EXPECT_NEAR(r.pods[3].finish_s, whole_end + 100.0, 1e-9);
  EXPECT_EQ(r.summary.completed, 4U);
  ASSERT_TRUE(r.summary.mode_results.figure("mig.reconfigurations").has_value());
  EXPECT_EQ(*r.summary.mode_results.figure("mig.reconfigurations"), 0);
}

TEST(MigEngine, A30SlicesAreQuartersOfTheGpu) {
  // A30: 4 slices of 14 SMs. 250 milli and 5 GiB -> 1g.6gb, rate min(1, 14/56 / 0.25) = 1;
  // a full-demand pod on 2g.12gb runs at 28/56. Allocation: 7 + 14 of 28 units over [0, 100],
  // then 14 of 28 over [100, 200].
  const auto r =
      run(cluster_of({node_group("n", 1, "A30", 1)}),
          {pod("q", 0, 100).milli(250).gpu_mem(5 * kGi), with_profile(pod("h", 0, 100), "2g.12gb")},
          "first-fit", mig_static({{"1g.6gb", 2}, {"2g.12gb", 1}}));
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 200.0);
  EXPECT_NEAR(r.summary.allocation_ratio, (21.0 / 28 + 14.0 / 28) / 2, 1e-12);
}

TEST(MigEngine, NeighboursDoNotSlowAnInstance) {
  // Seven 1g.10gb pods of full demand each run at 14/108 whatever the others do.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 7; ++i)
    pods.push_back(with_profile(pod("p" + std::to_string(i), i, 14), "1g.10gb"));
  const auto r = run(one_a100(), pods, "first-fit", mig_static({{"1g.10gb", 7}}));
  for (int i = 0; i < 7; ++i) EXPECT_NEAR(r.pods[static_cast<size_t>(i)].finish_s, i + 108.0, 1e-9);
}

TEST(MigEngine, MemoryBeyondTheInstanceFailsAtOnce) {
  const auto r = run(one_a100(),
                     {with_profile(pod("big", 0, 10).gpu_mem(12 * kGi), "1g.10gb"),
                      pod("fits", 0, 10).milli(100).gpu_mem(12 * kGi)},
                     "first-fit", mig_static({{"1g.10gb", 1}, {"1g.20gb", 1}}));
  EXPECT_EQ(r.pods[0].status, PodStatus::kFailed);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 0.0);
  EXPECT_EQ(r.reason_of(0),
            "out of memory in MIG instance 1g.10gb@2 on n-0 GPU 0: needs 12288 MiB of 9984");
  // The mapped pod takes the smallest profile with its memory: 1g.20gb, and completes.
  EXPECT_EQ(r.pods[1].status, PodStatus::kCompleted);
  EXPECT_EQ(r.summary.not_placed_reasons.at("out of memory (more than its MIG instance holds)"),
            1U);
}

TEST(MigEngine, PodsNoLayoutCanHoldAreUnschedulable) {
  const auto r = run(one_a100(), {pod("train", 0, 10)}, "first-fit",
                     mig_static({{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}));
  EXPECT_EQ(r.pods[0].status, PodStatus::kUnschedulable);
  EXPECT_EQ(r.reason_of(0),
            "no node could ever hold it: no MIG instance in the layout has 1000 milli of compute "
            "and 0 MiB");
}

TEST(MigEngine, WholeCardGpusBesideMigOnesServeOnlyPodsWithoutAProfile) {
  // GPU 0: seven 1g.10gb; GPU 1: MIG disabled (a whole card, all 108 SMs).
  SharingConfig c = mig_static({{"1g.10gb", 7}});
  auto settings = std::make_shared<MigSettings>(*c.mode_settings<MigSettings>());
  settings->rules[0].devices = {0};
  MigDeviceRule off;
  off.mig_enabled = false;
  settings->rules.push_back(off);
  c.set_mode_settings(settings);
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
                     {pod("train", 0, 100), pod("pair", 0, 10).gpus(2),
                      with_profile(pod("small", 0, 14), "1g.10gb")},
                     "first-fit", c);
  EXPECT_EQ(testing::gpus_of(r, 0), std::vector<int>{1});
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);  // a whole card: no MIG SM loss
  EXPECT_EQ(r.pods[1].status, PodStatus::kUnschedulable);
  EXPECT_EQ(r.reason_of(1),
            "no node could ever hold it: no node has 2 GPUs with a fitting instance in the layout");
  EXPECT_EQ(testing::gpus_of(r, 2), std::vector<int>{0});
  EXPECT_NEAR(r.pods[2].finish_s, 108.0, 1e-9);
}

TEST(MigEngine, StrandedCapacityCountsFreeInstancesNoPodTakes) {
  // Window 0..200. 0-100: a holds one 1g (1/7); free 1g (1/7) and 3g (3/7) are stranded, the 2g
  // is not (b, yet to arrive, takes it): 4/7. 100-200: b on the 2g; free 1g x2 and 3g: 5/7.
  const auto r = run(one_a100(), {pod("a", 0, 100).milli(100), pod("b", 100, 100).milli(200)},
                     "first-fit", mig_static({{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}));
  ASSERT_TRUE(r.summary.mode_results.figure("mig.reconfigurations").has_value());
  EXPECT_NEAR(*r.summary.mode_results.figure("mig.stranded_ratio"), (4.0 / 7 + 5.0 / 7) / 2, 1e-12);
  // Allocation: a's 1g (4 of 28 units) then b's 2g (8 of 28): (4/28 + 8/28) / 2.
  EXPECT_NEAR(r.summary.allocation_ratio, (4.0 / 28 + 8.0 / 28) / 2, 1e-12);
}

TEST(MigEngine, DynamicReconfigurationDelaysThePodByItsTimeAndIsCharged) {
  // No instances at first: a (1g) forces a re-partitioning at 0 and starts at exactly 60.
  // c arrives at 300, after a ended, and takes a's free instance at once: still one.
  const auto r = run(one_a100(), {pod("a", 0, 100).milli(100), pod("c", 300, 50).milli(100)},
                     "first-fit", mig_dynamic(60));
  EXPECT_EQ(r.sharing, "mig (dynamic, 60s reconfigure)");
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 60.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 160.0);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 300.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 350.0);
  ASSERT_TRUE(r.summary.mode_results.figure("mig.reconfigurations").has_value());
  EXPECT_EQ(*r.summary.mode_results.figure("mig.reconfigurations"), 1);
  EXPECT_DOUBLE_EQ(*r.summary.mode_results.figure("mig.reconfiguration_gpu_s"), 60.0);
  EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.max, 60.0);
}

TEST(MigEngine, DynamicWaitsForABusyGpuAndKeepsRunningInstances) {
  // a forces a re-partitioning (0-60, a on 1g.10gb@6: the highest start). b arrives at 10 while
  // the GPU is busy; at 60 the GPU is free again, b's instance is added beside a's (kept) in a
  // second re-partitioning: b starts at 120. d (whole GPU) arrives at 400 when all is free: the
  // free instances are recreated as one 7g.80gb (98 of 108 SMs): 460 + 98 * 108/98.
  const auto r = run(one_a100(),
                     {pod("a", 0, 100).milli(100), pod("b", 10, 100).milli(100), pod("d", 400, 98)},
                     "first-fit", mig_dynamic(60));
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 60.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 160.0);  // not disturbed by b's re-partitioning
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 120.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 220.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 460.0);
  EXPECT_NEAR(r.pods[2].finish_s, 460.0 + 108.0, 1e-9);
  EXPECT_EQ(*r.summary.mode_results.figure("mig.reconfigurations"), 3);
  EXPECT_DOUBLE_EQ(*r.summary.mode_results.figure("mig.reconfiguration_gpu_s"), 180.0);
}

TEST(MigEngine, DynamicPrefersAnIdleGpuOnlyAfterBusyOnesAndTwoGpuPodsTakeBoth) {
  // Two GPUs. a (1g) re-partitions GPU 0 (both idle: the lower index). b (1g, at 100) fits
  // beside a on GPU 0 (binpack: the used GPU first), re-partitioning it again. t (2 GPUs, whole)
  // at 1000 re-partitions both into 7g.80gb.
  const auto r =
      run(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
          {pod("a", 0, 500).milli(100), pod("b", 100, 100).milli(100), pod("t", 1000, 98).gpus(2)},
          "best-fit", mig_dynamic(30));
  EXPECT_EQ(testing::gpus_of(r, 0), std::vector<int>{0});
  EXPECT_EQ(testing::gpus_of(r, 1), std::vector<int>{0});
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 130.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 1030.0);
  EXPECT_NEAR(r.pods[2].finish_s, 1030.0 + 108.0, 1e-9);
  EXPECT_EQ(*r.summary.mode_results.figure("mig.reconfigurations"), 4);
  EXPECT_DOUBLE_EQ(*r.summary.mode_results.figure("mig.reconfiguration_gpu_s"), 120.0);
}

}  // namespace
}  // namespace slicelab
