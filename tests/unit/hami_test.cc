// Pins down sharing mode hami against HAMi's own rules: the per-GPU fit (slots, memory, memory
// percentage, cores, exclusive 100, 0 cores, memory scaling), the node and GPU scores of both
// policies on hand-computed nodes, the device order, and out-of-memory under overcommit.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sim/modes/hami/hami_fit.h"
#include "sim/modes/hami/hami_node_summary.h"
#include "sim/modes/hami/hami_settings.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace hami_test {

using testing::cluster_of;
using testing::gpus_of;
using testing::node_group;
using testing::pod;

constexpr int64_t kGi = 1024;
constexpr int64_t kA100 = 81920;  // A100-80GB in the built-in catalog
constexpr int64_t kL4 = 23034;    // L4

SharingConfig hami(double memory_scaling = 1.0, int split = 10) {
  SharingConfig c;
  c.kind = "hami";
  auto s = std::make_shared<HamiSettings>();
  s->device_memory_scaling = memory_scaling;
  s->device_split_count = split;
  c.set_mode_settings(s);
  return c;
}

// --- the per-GPU fit (device.go, Fit), one rule at a time ---

TEST(HamiFit, SlotsRunOutAtTheSplitCount) {
  const HamiDevice dev{2, kA100, 100};
  EXPECT_EQ(hami_gpu_fit(dev, {1, 0, 0}, {kGi, 0, 10}), HamiMisfit::kFits);
  EXPECT_EQ(hami_gpu_fit(dev, {2, 0, 0}, {kGi, 0, 10}), HamiMisfit::kSlotsExhausted);
}

TEST(HamiFit, MemoryIsTotalMinusUsed) {
  const HamiDevice dev{10, kA100, 100};
  // 81920 - 71680 = 10240 free: 10 GiB fits exactly, one MiB more does not.
  EXPECT_EQ(hami_gpu_fit(dev, {3, 71680, 30}, {10240, 0, 10}), HamiMisfit::kFits);
  EXPECT_EQ(hami_gpu_fit(dev, {3, 71680, 30}, {10241, 0, 10}), HamiMisfit::kMemory);
}

TEST(HamiFit, MemoryPercentageIsOfTheGpusTotal) {
  const HamiDevice dev{10, kA100, 100};
  EXPECT_EQ(hami_memory_request({0, 25, 0}, dev), 20480);    // 81920 x 25 / 100
  EXPECT_EQ(hami_memory_request({0, 0, 0}, dev), kA100);     // neither given: all of it
  EXPECT_EQ(hami_memory_request({5000, 25, 0}, dev), 5000);  // gpumem wins over a percentage
  EXPECT_EQ(hami_gpu_fit(dev, {1, 61440, 0}, {0, 25, 0}), HamiMisfit::kFits);
  EXPECT_EQ(hami_gpu_fit(dev, {1, 61441, 0}, {0, 25, 0}), HamiMisfit::kMemory);
  // Scaled memory scales the percentage too: 46068 x 50 / 100 = 23034.
  EXPECT_EQ(hami_memory_request({0, 50, 0}, {10, 46068, 100}), 23034);
}

TEST(HamiFit, CoresAreTotalMinusUsed) {
  const HamiDevice dev{10, kA100, 100};
  EXPECT_EQ(hami_gpu_fit(dev, {2, 0, 80}, {kGi, 0, 20}), HamiMisfit::kFits);
  EXPECT_EQ(hami_gpu_fit(dev, {2, 0, 80}, {kGi, 0, 21}), HamiMisfit::kCores);
}

TEST(HamiFit, HundredCoresWantTheGpuAlone) {
  const HamiDevice dev{10, kA100, 100};
  EXPECT_EQ(hami_gpu_fit(dev, {0, 0, 0}, {kGi, 0, 100}), HamiMisfit::kFits);
  // A tenant with no cores still makes the GPU taken.
  EXPECT_EQ(hami_gpu_fit(dev, {1, kGi, 0}, {kGi, 0, 100}), HamiMisfit::kExclusive);
  // With deviceCoreScaling 2 (200 cores) the rule does not apply: 100 of the 150 left fit.
  EXPECT_EQ(hami_gpu_fit({10, kA100, 200}, {1, kGi, 50}, {kGi, 0, 100}), HamiMisfit::kFits);
}

TEST(HamiFit, ZeroCoresNeedACoreLeft) {
  const HamiDevice dev{10, kA100, 100};
  EXPECT_EQ(hami_gpu_fit(dev, {2, 0, 99}, {kGi, 0, 0}), HamiMisfit::kFits);
  EXPECT_EQ(hami_gpu_fit(dev, {1, 0, 100}, {kGi, 0, 0}), HamiMisfit::kCoresExhausted);
}

TEST(HamiFit, MemoryScalingAdmitsMoreThanTheGpuHolds) {
  // Two 10 GiB tenants on an L4: 23034 - 20480 = 2554 left; scaled by 1.5, 34551 - 20480.
  EXPECT_EQ(hami_gpu_fit({10, kL4, 100}, {2, 20480, 50}, {10240, 0, 25}), HamiMisfit::kMemory);
  EXPECT_EQ(hami_gpu_fit({10, 34551, 100}, {2, 20480, 50}, {10240, 0, 25}), HamiMisfit::kFits);
}

// --- scores (policy/node_policy.go ComputeDefaultScore, policy/gpu_policy.go ComputeScore) ---

TEST(HamiScores, NodeScoreByHand) {
  // Two A100s, split 10: one with 2 tenants, 50 cores, 20 GiB; one with 1, 25 cores, 10 GiB.
  // 10 x (3/20 + 75/200 + 30720/163840) = 10 x (0.15 + 0.375 + 0.1875) = 7.125.
  EXPECT_FLOAT_EQ(hami_node_score(3, 20, 75, 200, 30720, 2 * kA100), 7.125F);
  EXPECT_FLOAT_EQ(hami_node_score(0, 20, 0, 200, 0, 2 * kA100), 0.0F);
  // Full: 10 x (1 + 1 + 1).
  EXPECT_FLOAT_EQ(hami_node_score(20, 20, 200, 200, 2 * kA100, 2 * kA100), 30.0F);
}

TEST(HamiScores, GpuScoreCountsTheRequest) {
  // 10 x ((1+2)/10 + (25+50)/100 + (10240+20480)/81920) = 10 x (0.3 + 0.75 + 0.375) = 14.25.
  EXPECT_FLOAT_EQ(hami_gpu_score({10, kA100, 100}, {2, 20480, 50}, {10240, 0, 25}), 14.25F);
  // An idle GPU: 10 x (1/10 + 25/100 + 10240/81920) = 10 x 0.475 = 4.75.
  EXPECT_FLOAT_EQ(hami_gpu_score({10, kA100, 100}, {0, 0, 0}, {10240, 0, 25}), 4.75F);
}

TEST(HamiScores, KeysOrderAsTheFloats) {
  EXPECT_LT(hami_score_key(4.75F), hami_score_key(7.125F));
  EXPECT_LT(hami_score_key(7.125F), hami_score_key(7.1250005F));
  EXPECT_EQ(hami_score_key(0.0F), 0);
}

// --- the run: HAMi's filter, scorer and device order in the engine ---

TEST(HamiRun, GpuBinpackStacksAndSpreadSpreads) {
  const auto cluster = cluster_of({node_group("n", 1, "A100-80GB", 4)});
  const std::vector<PodSpec> pods = {pod("a", 0, 100).milli(250).gpu_mem(10 * kGi),
                                     pod("b", 1, 100).milli(250).gpu_mem(10 * kGi)};
  // All idle GPUs score alike: the higher index first (HAMi walks its sorted list from the end).
  const RunResult binpack = testing::run(cluster, pods, "hami-binpack", hami());
  EXPECT_EQ(gpus_of(binpack, 0), std::vector<int>{3});
  EXPECT_EQ(gpus_of(binpack, 1), std::vector<int>{3});  // the fullest GPU that fits
  const RunResult spread = testing::run(cluster, pods, "hami-spread", hami());
  EXPECT_EQ(gpus_of(spread, 0), std::vector<int>{3});
  EXPECT_EQ(gpus_of(spread, 1), std::vector<int>{2});  // the emptiest, then the higher index
}

TEST(HamiRun, NodeBinpackFillsOneNodeAndSpreadBoth) {
  const auto cluster = cluster_of({node_group("n", 2, "A100-80GB", 1)});
  const std::vector<PodSpec> pods = {pod("a", 0, 100).milli(250).gpu_mem(10 * kGi),
                                     pod("b", 1, 100).milli(250).gpu_mem(10 * kGi)};
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const RunResult binpack =
        testing::run(cluster, pods, "hami-binpack", hami(), testing::quiet_config(), seed);
    EXPECT_EQ(binpack.pods[0].node, binpack.pods[1].node) << seed;
    const RunResult spread =
        testing::run(cluster, pods, "hami-spread", hami(), testing::quiet_config(), seed);
    EXPECT_NE(spread.pods[0].node, spread.pods[1].node) << seed;
  }
}

TEST(HamiRun, TheSharingSettingsChooseThePoliciesOfPresetHami) {
  const auto cluster = cluster_of({node_group("n", 1, "A100-80GB", 4)});
  const std::vector<PodSpec> pods = {pod("a", 0, 100).milli(250).gpu_mem(10 * kGi),
                                     pod("b", 1, 100).milli(250).gpu_mem(10 * kGi)};
  // HAMi's defaults: GPU spread.
  EXPECT_EQ(gpus_of(testing::run(cluster, pods, "hami", hami()), 1), std::vector<int>{2});
  SharingConfig c = hami();
  auto s = std::make_shared<HamiSettings>(*c.mode_settings<HamiSettings>());
  s->gpu_policy = HamiPolicy::kBinpack;
  c.set_mode_settings(s);
  EXPECT_EQ(gpus_of(testing::run(cluster, pods, "hami", c), 1), std::vector<int>{3});
}

// The third pod waits for a slot, memory or cores; it starts when the first ends at 100 s.
double third_start(const SharingConfig& sharing, const ClusterSpec& cluster,
                   std::vector<PodSpec> pods) {
  const RunResult r = testing::run(cluster, pods, "hami-binpack", sharing);
  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  return r.pods[2].start_s;
}

TEST(HamiRun, FilterWaitsForSlotsMemoryAndCores) {
  const auto a100 = cluster_of({node_group("n", 1, "A100-80GB", 1)});
  const auto l4 = cluster_of({node_group("n", 1, "L4", 1)});
  auto small = [](const char* n, double t) { return pod(n, t, 100 + t).milli(100).gpu_mem(kGi); };
  // Slots: split count 2.
  EXPECT_DOUBLE_EQ(third_start(hami(1.0, 2), a100, {small("a", 0), small("b", 1), small("c", 2)}),
                   100.0);
  EXPECT_DOUBLE_EQ(third_start(hami(1.0, 3), a100, {small("a", 0), small("b", 1), small("c", 2)}),
                   2.0);
  // Memory: two 10 GiB tenants fill an L4 (23034 MiB); scaled by 1.5 a third fits.
  auto ten = [](const char* n, double t) {
    return pod(n, t, 100 + t).milli(250).gpu_mem(10 * kGi);
  };
  EXPECT_DOUBLE_EQ(third_start(hami(), l4, {ten("a", 0), ten("b", 1), ten("c", 2)}), 100.0);
  // Really using 6 GiB each: 18 GiB of the L4's 22.5 GiB, so no one runs out.
  std::vector<PodSpec> light = {ten("a", 0), ten("b", 1), ten("c", 2)};
  for (PodSpec& p : light) p.gpu_memory_used_mib = 6 * kGi;
  EXPECT_DOUBLE_EQ(third_start(hami(1.5), l4, light), 2.0);
  // A memory percentage: 50% of 81920 each, so two fill the A100.
  std::vector<PodSpec> halves = {small("a", 0), small("b", 1), small("c", 2)};
  for (PodSpec& p : halves) {
    p.gpu_memory_mib = 0;
    p.gpu_memory_percent = 50;
  }
  EXPECT_DOUBLE_EQ(third_start(hami(), a100, halves), 100.0);
  // Cores: 40 + 40, then 30 > 20 left.
  EXPECT_DOUBLE_EQ(third_start(hami(), a100,
                               {pod("a", 0, 100).milli(400).gpu_mem(kGi),
                                pod("b", 1, 101).milli(400).gpu_mem(kGi),
                                pod("c", 2, 102).milli(300).gpu_mem(kGi)}),
                   100.0);
}

TEST(HamiRun, ExclusiveAndZeroCoreRequestsWait) {
  const auto a100 = cluster_of({node_group("n", 1, "A100-80GB", 1)});
  // 100 cores (gpu_milli 1000) waits for the GPU to be empty.
  const RunResult whole =
      testing::run(a100, {pod("a", 0, 100).milli(100).gpu_mem(kGi), pod("b", 1, 10).gpu_mem(kGi)},
                   "hami-binpack", hami());
  EXPECT_DOUBLE_EQ(whole.pods[1].start_s, 100.0);
  // 0 cores (gpu_milli below 10) waits while all 100 cores are taken.
  const RunResult zero =
      testing::run(a100, {pod("a", 0, 100).gpu_mem(kGi), pod("b", 1, 10).milli(5).gpu_mem(kGi)},
                   "hami-binpack", hami());
  EXPECT_DOUBLE_EQ(zero.pods[1].start_s, 100.0);
}

TEST(HamiRun, PercentageRequestBecomesTheLimitOnItsGpu) {
  // 25% of an A100 is a 20480 MiB limit: a peak of 20481 MiB is over it.
  PodSpec p = pod("a", 0, 100).milli(250);
  p.gpu_memory_percent = 25;
  p.gpu_memory_used_mib = 20481;
  const RunResult r =
      testing::run(cluster_of({node_group("n", 1, "A100-80GB", 1)}), {p}, "hami-binpack", hami());
  EXPECT_EQ(r.pods[0].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[0].failure, FailureCause::kOverMemoryCap);
  EXPECT_EQ(r.reasons[r.pods[0].reason],
            "out of memory on n-0 GPU 0: peak 20481 MiB over its hami limit of 20480 MiB");
}

// --- overcommit: admission counts requests, the GPU holds what its tenants use ---

TEST(HamiOvercommit, TenantsOverThePhysicalMemoryRunOutOfIt) {
  // L4 at scaling 2: 46068 MiB admitted, four 10 GiB requests fit (40960). Each uses 6 GiB:
  // three use 18432 MiB of 23034, the fourth makes 24576 and fails; the fifth has no room.
  const auto l4 = cluster_of({node_group("n", 1, "L4", 1)});
  std::vector<PodSpec> pods;
  for (int i = 0; i < 4; ++i) {
    PodSpec p = pod("p" + std::to_string(i), i, 1000).milli(100).gpu_mem(10 * kGi);
    p.gpu_memory_used_mib = 6 * kGi;
    pods.push_back(p);
  }
  const RunResult r = testing::run(l4, pods, "hami-binpack", hami(2.0));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.pods[i].status, PodStatus::kCompleted) << i;
  EXPECT_EQ(r.pods[3].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[3].failure, FailureCause::kOvercommittedMemory);
  EXPECT_EQ(r.reasons[r.pods[3].reason],
            "out of memory on n-0 GPU 0: its tenants use 24576 MiB (this pod 6144 MiB) of the "
            "GPU's 23034 MiB; hami admitted requests up to 46068 MiB");
  // Without overcommit the fourth waits for memory instead of failing.
  const RunResult plain = testing::run(l4, pods, "hami-binpack", hami(1.0));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(plain.pods[i].status, PodStatus::kCompleted) << i;
  EXPECT_DOUBLE_EQ(plain.pods[2].start_s, 1000.0);
}

TEST(HamiOvercommit, AFailedTenantGivesItsMemoryBack) {
  // The fourth fails and leaves; a fifth that uses 4 GiB then fits: 18432 + 4096 <= 23034.
  const auto l4 = cluster_of({node_group("n", 1, "L4", 1)});
  std::vector<PodSpec> pods;
  for (int i = 0; i < 5; ++i) {
    PodSpec p = pod("p" + std::to_string(i), i, 1000).milli(100).gpu_mem(10 * kGi);
    p.gpu_memory_used_mib = static_cast<int32_t>((i == 4 ? 4 : 6) * kGi);
    pods.push_back(p);
  }
  const RunResult r = testing::run(l4, pods, "hami-binpack", hami(2.0));
  EXPECT_EQ(r.pods[3].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[4].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[4].start_s, 4.0);
}

// --- the per-node summary: refuses a node only when its GPUs one by one would ---

HamiNodeSummary summary_of(const HamiDevice& dev, const std::vector<HamiUsage>& gpus) {
  HamiNodeSummary s;
  for (const HamiUsage& u : gpus) s.add(dev, u);
  return s;
}

TEST(HamiNodeSummary, RefusesEachReasonFitGives) {
  const HamiDevice dev{2, 1000, 100};
  const HamiAsk small{100, 0, 10};
  // Both slots of both GPUs taken.
  EXPECT_FALSE(hami_node_may_fit(summary_of(dev, {{2, 0, 0}, {2, 0, 0}}), dev, small, 1));
  // One open GPU, two asked for.
  EXPECT_FALSE(hami_node_may_fit(summary_of(dev, {{1, 0, 0}, {2, 0, 0}}), dev, small, 2));
  EXPECT_TRUE(hami_node_may_fit(summary_of(dev, {{1, 0, 0}, {2, 0, 0}}), dev, small, 1));
  // 950 MiB used of the open GPU: 50 left < 100; the full GPU's free memory does not count.
  EXPECT_FALSE(hami_node_may_fit(summary_of(dev, {{1, 950, 0}, {2, 0, 0}}), dev, small, 1));
  // 95 cores used: 5 left < 10.
  EXPECT_FALSE(hami_node_may_fit(summary_of(dev, {{1, 0, 95}}), dev, small, 1));
  // 100 cores want an idle GPU; 0 cores want a core left.
  EXPECT_FALSE(hami_node_may_fit(summary_of(dev, {{1, 0, 0}}), dev, {100, 0, 100}, 1));
  EXPECT_TRUE(hami_node_may_fit(summary_of(dev, {{0, 0, 0}}), dev, {100, 0, 100}, 1));
  EXPECT_FALSE(hami_node_may_fit(summary_of(dev, {{1, 0, 100}}), dev, {100, 0, 0}, 1));
  // Sums over every GPU, open or not, for the node score.
  const HamiNodeSummary s = summary_of(dev, {{2, 300, 40}, {1, 200, 30}});
  EXPECT_EQ(s.used, 3);
  EXPECT_EQ(s.used_mem, 500);
  EXPECT_EQ(s.used_cores, 70);
}

// Random nodes and requests: whenever at least `k` GPUs pass Fit, the summary lets the node
// through, so the filter's shortcut never drops a node the per-GPU test would keep.
TEST(HamiNodeSummary, NeverRefusesANodeThatFits) {
  std::mt19937 rng(30);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int fitting_nodes = 0, refused = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const HamiDevice dev{pick(1, 4), pick(0, 8) * 100, pick(0, 1) == 0 ? 100 : pick(0, 3) * 50};
    std::vector<HamiUsage> gpus(static_cast<size_t>(pick(1, 4)));
    for (HamiUsage& u : gpus) u = {pick(0, dev.count), pick(0, 8) * 100, pick(0, 4) * 25};
    const HamiAsk ask{pick(0, 1) * pick(1, 8) * 100, pick(0, 1) * pick(1, 100),
                      pick(0, 2) == 0 ? 100 : pick(0, 4) * 25};
    const int k = pick(1, static_cast<int>(gpus.size()));
    int fit = 0;
    for (const HamiUsage& u : gpus) fit += hami_gpu_fit(dev, u, ask) == HamiMisfit::kFits ? 1 : 0;
    const bool may = hami_node_may_fit(summary_of(dev, gpus), dev, ask, k);
    if (fit >= k) {
      ++fitting_nodes;
      ASSERT_TRUE(may) << "trial " << trial;
    } else {
      refused += may ? 0 : 1;
    }
  }
  // Both sides exercised: nodes that fit, and nodes the summary alone refuses.
  EXPECT_GT(fitting_nodes, 500);
  EXPECT_GT(refused, 1000);
}

}  // namespace hami_test
}  // namespace slicelab
