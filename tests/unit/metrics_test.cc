// Pins down every summary metric on hand-computed runs: allocation ratio, queueing delay, JCT,
// slowdown, SM and memory utilization, SLO attainment, failures and reasons, GPU-hours, cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sim/metrics/distribution.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::gpus_of;
using testing::node_group;
using testing::pod;
using testing::quiet_config;
using testing::run;
using testing::time_slice;
using testing::whole_card;

// --- nearest-rank distributions ---

std::vector<double> sorted_copy(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SimDistribution, NearestRankOnOneToTwenty) {
  // Shuffled 1..20. p50: rank ceil(0.50*20) = 10; p95: ceil(19) = 19; p99: ceil(19.8) = 20.
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(5));
  const Distribution d = distribution_of(v);
  EXPECT_EQ(d.count, 20U);
  EXPECT_DOUBLE_EQ(d.mean, 10.5);
  EXPECT_DOUBLE_EQ(d.p50, 10.0);
  EXPECT_DOUBLE_EQ(d.p95, 19.0);
  EXPECT_DOUBLE_EQ(d.p99, 20.0);
  EXPECT_DOUBLE_EQ(d.max, 20.0);
  EXPECT_TRUE(std::is_permutation(v.begin(), v.end(), sorted_copy(v).begin()));
}

TEST(SimDistribution, PartialSelectionMatchesTheSortedNearestRanks) {
  // Random lengths and values with many duplicates (ties around each rank), and heavy tails:
  // every percentile must be the sorted array's nearest rank, bit for bit.
  std::mt19937_64 gen(11);
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + gen() % (round < 200 ? 60 : 5000);
    std::vector<double> v(n);
    const uint64_t distinct = 1 + gen() % 40;
    for (double& x : v) x = static_cast<double>(gen() % distinct) * (gen() % 7 == 0 ? 1e6 : 1.5);
    const std::vector<double> sorted = sorted_copy(v);
    const Distribution d = distribution_of(v);
    ASSERT_EQ(d.p50, nearest_rank(sorted, 50)) << "n=" << n;
    ASSERT_EQ(d.p95, nearest_rank(sorted, 95)) << "n=" << n;
    ASSERT_EQ(d.p99, nearest_rank(sorted, 99)) << "n=" << n;
    ASSERT_EQ(d.max, sorted.back());
    double sum = 0;
    for (const double x : sorted) sum += x;
    ASSERT_DOUBLE_EQ(d.mean, sum / static_cast<double>(n));
  }
}

TEST(SimDistribution, NearestRankOnOneToHundredHitsExactRanks) {
  // 0.95 * 100 and 0.99 * 100 must land on ranks 95 and 99, not one above.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Distribution d = distribution_of(v);
  EXPECT_DOUBLE_EQ(d.p50, 50.0);
  EXPECT_DOUBLE_EQ(d.p95, 95.0);
  EXPECT_DOUBLE_EQ(d.p99, 99.0);
  EXPECT_DOUBLE_EQ(d.max, 100.0);
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
}

TEST(SimDistribution, SmallAndEmptyInputs) {
  std::vector<double> one = {7.0};
  const Distribution d1 = distribution_of(one);
  EXPECT_EQ(d1.count, 1U);
  EXPECT_DOUBLE_EQ(d1.p50, 7.0);
  EXPECT_DOUBLE_EQ(d1.p99, 7.0);

  // {1, 2, 3}: p50 rank ceil(1.5) = 2 -> 2; p95 rank ceil(2.85) = 3 -> 3.
  std::vector<double> three = {3.0, 1.0, 2.0};
  const Distribution d3 = distribution_of(three);
  EXPECT_DOUBLE_EQ(d3.p50, 2.0);
  EXPECT_DOUBLE_EQ(d3.p95, 3.0);
  EXPECT_DOUBLE_EQ(d3.mean, 2.0);

  std::vector<double> none;
  const Distribution d0 = distribution_of(none);
  EXPECT_EQ(d0.count, 0U);
  EXPECT_DOUBLE_EQ(d0.p50, 0.0);
  EXPECT_DOUBLE_EQ(d0.max, 0.0);

  const std::vector<double> sorted = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 0), 10.0);    // clamped to rank 1
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 25), 10.0);   // rank 1
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 26), 20.0);   // rank ceil(1.04) = 2
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 100), 40.0);  // rank 4
}

// --- one hand-computed whole-card run with every metric ---
//
// Cluster: node a-0 (index 0): 2 x A100-80GB (81920 MiB, $3.67/h), 16000 CPU, 65536 MiB.
//          node t-0 (index 1): 1 x T4 (15360 MiB, $0.35/h), 8000 CPU, 32768 MiB.
// First-fit, whole cards, FIFO. Pods:
//   p0 train: t=0,  100 s, A100 only, 1 GPU 1000 milli, 40960 MiB, SLO queue <= 10
//   p1 infer: t=0,  200 s, T4 only,   1 GPU  500 milli,  7680 MiB, SLO JCT <= 200
//   p2 wide:  t=10,  50 s, A100 only, 2 GPUs,            20480 MiB, SLO JCT <= 100
//   p3 small: t=20,  30 s, any model, 1 GPU  250 milli,  8192 MiB, SLO queue <= 5
//   p4 huge:  t=30,  10 s, 3 GPUs: no node has 3, unschedulable;     SLO queue <= 1000
// Timeline:
//   0    p0 on a-0 GPU 0, p1 on t-0 GPU 0
//   10   p2 needs 2 idle A100s, a-0 has 1: first placement failure, 2 of 3 GPUs allocated
//   20   p3 queues behind p2 (FIFO), although a-0 GPU 1 is idle
//   30   p4 reported unschedulable
//   100  p0 ends; p2 takes a-0 GPUs 0, 1; p3 still finds no GPU
//   150  p2 ends; p3 takes a-0 GPU 0
//   180  p3 ends
//   200  p1 ends: the last event; window [0, 200]
std::vector<PodSpec> every_metric_pods() {
  return {
      pod("train", 0, 100).gpu_mem(40960).models({"A100-80GB"}).slo_queue(10),
      pod("infer", 0, 200).milli(500).gpu_mem(7680).models({"T4"}).slo_jct(200),
      pod("wide", 10, 50).gpus(2).gpu_mem(20480).models({"A100-80GB"}).slo_jct(100),
      pod("small", 20, 30).milli(250).gpu_mem(8192).slo_queue(5),
      pod("huge", 30, 10).gpus(3).slo_queue(1000),
  };
}

ClusterSpec every_metric_cluster() {
  return cluster_of(
      {node_group("a", 1, "A100-80GB", 2, 16000, 65536), node_group("t", 1, "T4", 1, 8000, 32768)});
}

RunResult every_metric_run() {
  EngineConfig config = quiet_config();
  config.sample_interval_s = 50;
  return run(every_metric_cluster(), every_metric_pods(), "first-fit", whole_card(), config);
}

TEST(SimMetricsExample, PodOutcomes) {
  const RunResult r = every_metric_run();
  const double start[] = {0, 0, 100, 150, -1};
  const double finish[] = {100, 200, 150, 180, -1};
  const int node[] = {0, 1, 0, 0, -1};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(r.pods[i].start_s, start[i]) << i;
    EXPECT_DOUBLE_EQ(r.pods[i].finish_s, finish[i]) << i;
    EXPECT_EQ(r.pods[i].node, node[i]) << i;
  }
  EXPECT_EQ(gpus_of(r, 0), (std::vector<int>{0}));
  EXPECT_EQ(gpus_of(r, 1), (std::vector<int>{0}));
  EXPECT_EQ(gpus_of(r, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(gpus_of(r, 3), (std::vector<int>{0}));
  EXPECT_TRUE(gpus_of(r, 4).empty());
  EXPECT_EQ(r.pods[4].status, PodStatus::kUnschedulable);
}

TEST(SimMetricsExample, CountsReasonsAndEngineWork) {
  const RunSummary s = every_metric_run().summary;
  EXPECT_EQ(s.pods, 5U);
  EXPECT_EQ(s.completed, 4U);
  EXPECT_EQ(s.failed, 0U);
  EXPECT_EQ(s.unschedulable, 1U);
  EXPECT_EQ(s.pending_at_end, 0U);
  EXPECT_EQ(s.running_at_end, 0U);
  EXPECT_EQ(s.not_placed_reasons,
            (std::map<std::string, size_t>{
                {"no node could ever hold it: needs 3 GPUs on one node, the most an allowed node "
                 "has is 2",
                 1}}));
  // 5 arrivals + 4 finishes. Attempts: p0, p1, p2@10, p2@100, p3@100, p3@150.
  EXPECT_EQ(s.events, 9U);
  EXPECT_EQ(s.placement_attempts, 6U);
  EXPECT_DOUBLE_EQ(s.window_start_s, 0.0);
  EXPECT_DOUBLE_EQ(s.window_end_s, 200.0);
}

TEST(SimMetricsExample, AllocationRatio) {
  const RunSummary s = every_metric_run().summary;
  // GPUs allocated (of 3): 2 on [0,100), 3 on [100,150), 2 on [150,180), 1 on [180,200).
  // Integral 2*100 + 3*50 + 2*30 + 1*20 = 430 GPU-s over 3 GPUs * 200 s = 600.
  EXPECT_DOUBLE_EQ(s.allocation_ratio, 430.0 / 600.0);
  // First failure at t=10 with p0 and p1 placed: 2 of 3.
  ASSERT_TRUE(s.first_failure_s.has_value());
  EXPECT_DOUBLE_EQ(*s.first_failure_s, 10.0);
  ASSERT_TRUE(s.allocation_ratio_at_first_failure.has_value());
  EXPECT_DOUBLE_EQ(*s.allocation_ratio_at_first_failure, 2.0 / 3.0);
}

TEST(SimMetricsExample, QueueDelayJctAndSlowdown) {
  const RunSummary s = every_metric_run().summary;
  // Queue delays (started pods only): 0, 0, 90, 130. n = 4.
  //   p50: rank ceil(2) = 2 -> 0; p95: rank ceil(3.8) = 4 -> 130; p99: rank 4 -> 130.
  EXPECT_EQ(s.queue_delay_s.count, 4U);
  EXPECT_DOUBLE_EQ(s.queue_delay_s.mean, 220.0 / 4);
  EXPECT_DOUBLE_EQ(s.queue_delay_s.p50, 0.0);
  EXPECT_DOUBLE_EQ(s.queue_delay_s.p95, 130.0);
  EXPECT_DOUBLE_EQ(s.queue_delay_s.p99, 130.0);
  EXPECT_DOUBLE_EQ(s.queue_delay_s.max, 130.0);
  // JCT: 100, 200, 140, 160 -> sorted 100, 140, 160, 200.
  EXPECT_EQ(s.jct_s.count, 4U);
  EXPECT_DOUBLE_EQ(s.jct_s.mean, 150.0);
  EXPECT_DOUBLE_EQ(s.jct_s.p50, 140.0);
  EXPECT_DOUBLE_EQ(s.jct_s.p95, 200.0);
  EXPECT_DOUBLE_EQ(s.jct_s.p99, 200.0);
  EXPECT_DOUBLE_EQ(s.jct_s.max, 200.0);
  // Slowdown = JCT / solo: 100/100 = 1, 200/200 = 1, 140/50 = 2.8, 160/30 = 5.333...
  EXPECT_EQ(s.slowdown.count, 4U);
  EXPECT_NEAR(s.slowdown.mean, (1 + 1 + 2.8 + 160.0 / 30) / 4, 1e-12);
  EXPECT_DOUBLE_EQ(s.slowdown.p50, 1.0);
  EXPECT_NEAR(s.slowdown.p95, 160.0 / 30, 1e-12);
  EXPECT_NEAR(s.slowdown.max, 160.0 / 30, 1e-12);
}

TEST(SimMetricsExample, SmAndMemoryUtilizationPerModel) {
  const RunSummary s = every_metric_run().summary;
  // per_model follows catalog order: T4 (index 3) before A100-80GB (index 8).
  ASSERT_EQ(s.per_model.size(), 2U);
  const ModelUsage& t4 = s.per_model[0];
  const ModelUsage& a100 = s.per_model[1];
  EXPECT_EQ(t4.model, "T4");
  EXPECT_EQ(t4.gpus, 1U);
  EXPECT_EQ(a100.model, "A100-80GB");
  EXPECT_EQ(a100.gpus, 2U);

  // SM (sm_demand = milli/1000, rate 1 on whole cards), A100 GPU-seconds:
  //   p0 1.0 * 100 + p2 1.0 * 2 GPUs * 50 + p3 0.25 * 30 = 207.5 over 2 * 200 = 400.
  // T4: p1 0.5 * 200 = 100 over 200.
  EXPECT_DOUBLE_EQ(a100.sm_utilization, 207.5 / 400);
  EXPECT_DOUBLE_EQ(t4.sm_utilization, 0.5);
  EXPECT_DOUBLE_EQ(s.sm_utilization, 307.5 / 600);

  // Memory used/total per GPU: A100 p0 40960/81920 = 0.5 * 100 + p2 0.25 * 2 * 50
  //   + p3 8192/81920 = 0.1 * 30 = 78 over 400. T4: p1 7680/15360 = 0.5 * 200 = 100 over 200.
  EXPECT_NEAR(a100.memory_utilization, 78.0 / 400, 1e-12);
  EXPECT_DOUBLE_EQ(t4.memory_utilization, 0.5);
  EXPECT_NEAR(s.memory_utilization, 178.0 / 600, 1e-12);

  // Allocation per model: A100 1*100 + 2*50 + 1*30 = 230 over 400; T4 200 over 200.
  EXPECT_DOUBLE_EQ(a100.allocation_ratio, 230.0 / 400);
  EXPECT_DOUBLE_EQ(t4.allocation_ratio, 1.0);
}

TEST(SimMetricsExample, GpuHoursAndCost) {
  const RunSummary s = every_metric_run().summary;
  const ModelUsage& t4 = s.per_model[0];
  const ModelUsage& a100 = s.per_model[1];
  // Provisioned: A100 2 GPUs * 200 s = 400 GPU-s, T4 200 GPU-s. Allocated: 230 and 200.
  EXPECT_DOUBLE_EQ(a100.gpu_hours_provisioned, 400.0 / 3600);
  EXPECT_DOUBLE_EQ(t4.gpu_hours_provisioned, 200.0 / 3600);
  EXPECT_DOUBLE_EQ(a100.gpu_hours_allocated, 230.0 / 3600);
  EXPECT_DOUBLE_EQ(t4.gpu_hours_allocated, 200.0 / 3600);
  EXPECT_NEAR(s.gpu_hours_provisioned, 600.0 / 3600, 1e-15);
  EXPECT_NEAR(s.gpu_hours_allocated, 430.0 / 3600, 1e-15);
  // Cost = provisioned hours * catalog price: A100 $3.67/h, T4 $0.35/h.
  EXPECT_NEAR(a100.cost_usd, 400.0 / 3600 * 3.67, 1e-12);
  EXPECT_NEAR(t4.cost_usd, 200.0 / 3600 * 0.35, 1e-12);
  EXPECT_NEAR(s.cost_usd, (400 * 3.67 + 200 * 0.35) / 3600, 1e-12);
}

TEST(SimMetricsExample, SloAttainment) {
  const RunSummary s = every_metric_run().summary;
  // p0 queue 0 <= 10: met. p1 JCT 200 <= 200: met (the bound is inclusive).
  // p2 JCT 140 > 100: missed. p3 queue 130 > 5: missed. p4 never ran: decided and missed.
  EXPECT_EQ(s.slo_pods, 5U);
  EXPECT_EQ(s.slo_met, 2U);
  EXPECT_EQ(s.slo_undecided, 0U);
  ASSERT_TRUE(s.slo_attainment.has_value());
  EXPECT_DOUBLE_EQ(*s.slo_attainment, 2.0 / 5.0);
}

TEST(SimMetricsExample, Samples) {
  const RunResult r = every_metric_run();
  // Every 50 s; the last at the final event (200).
  ASSERT_EQ(r.samples.size(), 5U);
  const double alloc[] = {2.0 / 3, 2.0 / 3, 1.0, 2.0 / 3, 0.0};
  // SM summed over the 3 GPUs / 3: t=0,50: 1 + 0.5; t=100: 2 + 0.5; t=150: 0.25 + 0.5.
  const double sm[] = {1.5 / 3, 1.5 / 3, 2.5 / 3, 0.75 / 3, 0.0};
  const uint32_t running[] = {2, 2, 2, 2, 0};
  const uint32_t pending[] = {0, 2, 1, 0, 0};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(r.samples[i].time_s, 50.0 * static_cast<double>(i)) << i;
    EXPECT_DOUBLE_EQ(r.samples[i].allocation_ratio, alloc[i]) << i;
    EXPECT_NEAR(r.samples[i].sm_utilization, sm[i], 1e-15) << i;
    EXPECT_EQ(r.samples[i].running, running[i]) << i;
    EXPECT_EQ(r.samples[i].pending, pending[i]) << i;
  }
}

// --- time-slice: rates below 1, fractional allocation, an out-of-memory failure ---

TEST(SimMetricsTimeSlice, SharedGpuWithAnOutOfMemoryFailure) {
  // One A100-80GB, 3 replicas, 10% switch overhead. a (90 s, 40960 MiB, SLO JCT <= 250) and
  // b (90 s, 20480 MiB) share from t=0 at rate 0.45: both end at 200. c (30000 MiB, SLO
  // queue <= 100) at 50 would make 91440 > 81920 MiB: it fails at start.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                     {pod("a", 0, 90).gpu_mem(40960).slo_jct(250), pod("b", 0, 90).gpu_mem(20480),
                      pod("c", 50, 10).gpu_mem(30000).slo_queue(100)},
                     "first-fit", time_slice(3, 0.1));
  const RunSummary& s = r.summary;
  EXPECT_EQ(s.completed, 2U);
  EXPECT_EQ(s.failed, 1U);
  EXPECT_EQ(
      s.not_placed_reasons,
      (std::map<std::string, size_t>{{"out of memory (neighbours hold the GPU's memory)", 1}}));
  EXPECT_EQ(r.reason_of(2),
            "out of memory on n-0 GPU 0: needs 30000 MiB, neighbours hold 61440 of 81920 MiB");
  EXPECT_NEAR(s.window_end_s, 200.0, 1e-9);
  // Allocation: 2 of 3 replicas over the whole window (c held one for no time at all).
  EXPECT_NEAR(s.allocation_ratio, 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.per_model[0].allocation_ratio, 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.gpu_hours_allocated, 2.0 / 3 * 200 / 3600, 1e-12);
  EXPECT_NEAR(s.gpu_hours_provisioned, 200.0 / 3600, 1e-12);
  // SM: 1.0 * 0.45 + 1.0 * 0.45 = 0.9 throughout. Memory: 61440 / 81920 = 0.75.
  EXPECT_NEAR(s.sm_utilization, 0.9, 1e-12);
  EXPECT_NEAR(s.memory_utilization, 0.75, 1e-12);
  // Slowdown 200 / 90 for both; queue delays 0 and 0 (c excluded).
  EXPECT_NEAR(s.slowdown.p50, 200.0 / 90, 1e-12);
  EXPECT_EQ(s.queue_delay_s.count, 2U);
  // SLO: a met (200 <= 250); c failed, decided and missed.
  EXPECT_EQ(s.slo_pods, 2U);
  EXPECT_EQ(s.slo_met, 1U);
  ASSERT_TRUE(s.slo_attainment.has_value());
  EXPECT_DOUBLE_EQ(*s.slo_attainment, 0.5);
}

TEST(SimMetricsTimeSlice, FractionalSmDemandCountsOnlyWhatIsUsed) {
  // Two 250-milli pods on one GPU (2 replicas): SM 0.5 for 100 s, then 0.25 for 100 s.
  // Mean over [0, 200] = (50 + 25) / 200 = 0.375.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                     {pod("a", 0, 100).milli(250), pod("b", 0, 200).milli(250)}, "first-fit",
                     time_slice(2, 0.0));
  EXPECT_DOUBLE_EQ(r.summary.sm_utilization, 0.375);
  // Allocation: 2 of 2 replicas for 100 s, 1 of 2 for 100 s = 0.75.
  EXPECT_DOUBLE_EQ(r.summary.allocation_ratio, 0.75);
}

// --- SLO edge cases, windows and prices ---

TEST(SimMetricsSlo, UndecidedPodsAreExcluded) {
  // One GPU, until 150. a (0-100, queue <= 0): met. b (100-200, JCT <= 150): still running at
  // 150, undecided. c: no SLO. d (2 GPUs, queue <= 1): unschedulable, missed.
  // Attainment = 1 met / (3 with SLO - 1 undecided) = 0.5.
  EngineConfig config = quiet_config();
  config.until_s = 150;
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                     {pod("a", 0, 100).slo_queue(0), pod("b", 0, 100).slo_jct(150), pod("c", 0, 10),
                      pod("d", 0, 10).gpus(2).slo_queue(1)},
                     "first-fit", whole_card(), config);
  EXPECT_EQ(r.pods[1].status, PodStatus::kRunning);
  EXPECT_EQ(r.summary.slo_pods, 3U);
  EXPECT_EQ(r.summary.slo_met, 1U);
  EXPECT_EQ(r.summary.slo_undecided, 1U);
  ASSERT_TRUE(r.summary.slo_attainment.has_value());
  EXPECT_DOUBLE_EQ(*r.summary.slo_attainment, 0.5);
}

TEST(SimMetricsSlo, NoDecidedSloPodsMeansNoAttainment) {
  const auto none = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}), {pod("a", 0, 10)});
  EXPECT_EQ(none.summary.slo_pods, 0U);
  EXPECT_FALSE(none.summary.slo_attainment.has_value());

  EngineConfig config = quiet_config();
  config.until_s = 5;
  const auto undecided = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                             {pod("a", 0, 10).slo_jct(20)}, "first-fit", whole_card(), config);
  EXPECT_EQ(undecided.summary.slo_pods, 1U);
  EXPECT_EQ(undecided.summary.slo_undecided, 1U);
  EXPECT_FALSE(undecided.summary.slo_attainment.has_value());
}

TEST(SimMetricsWindow, WindowStartsAtTheFirstArrival) {
  // One pod from 1000 to 1100 on a 1-GPU cluster: fully allocated over [1000, 1100].
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}), {pod("a", 1000, 100)});
  EXPECT_DOUBLE_EQ(r.summary.window_start_s, 1000.0);
  EXPECT_DOUBLE_EQ(r.summary.window_end_s, 1100.0);
  EXPECT_DOUBLE_EQ(r.summary.allocation_ratio, 1.0);
  EXPECT_DOUBLE_EQ(r.summary.gpu_hours_provisioned, 100.0 / 3600);
  EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.max, 0.0);
}

TEST(SimMetricsCost, PriceComesFromTheScenarioCatalog) {
  // Override A100-80GB's price to $10/h. 2 GPUs for one hour: 2 GPU-hours, $20; one allocated.
  GpuCatalog cat = GpuCatalog::builtin();
  GpuModel m = *cat.find("A100-80GB");
  m.price_per_hour = 10.0;
  cat.upsert(m);
  const ClusterSpec cluster = cluster_of({node_group("n", 1, "A100-80GB", 2)});
  const std::vector<PodSpec> pods = {pod("a", 0, 3600)};
  auto placement = build_placement(*placement_preset("first-fit"));
  const auto mode = make_sharing_mode(whole_card());
  const RunInputs in{cluster, cat, pods, *mode, quiet_config(), 0};
  const RunSummary s = run_simulation(in, placement).summary;
  EXPECT_DOUBLE_EQ(s.gpu_hours_provisioned, 2.0);
  EXPECT_DOUBLE_EQ(s.gpu_hours_allocated, 1.0);
  EXPECT_DOUBLE_EQ(s.cost_usd, 20.0);
  EXPECT_DOUBLE_EQ(s.allocation_ratio, 0.5);
}

}  // namespace
}  // namespace slicelab
