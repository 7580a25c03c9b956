// Pins down the fill experiment: sample_fill's stopping rule and naming, the engine's one-attempt
// fill mode with its per-pod curve and summary, mean_over_seeds, and `seeds:` + `fill` scenarios.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "reports/results_writer.h"
#include "sim/scenario/scenario.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/fill_sampler.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::pod;

double demand_of(const std::vector<PodSpec>& pods, size_t n) {
  double d = 0;
  for (size_t i = 0; i < n; ++i) d += pods[i].gpu_count * pods[i].gpu_milli / 1000.0;
  return d;
}

// --- sample_fill ---

std::vector<std::string> fill_names(const std::vector<PodSpec>& pods) {
  std::vector<std::string> n;
  n.reserve(pods.size());
  for (const auto& p : pods) n.push_back(p.name.str());
  return n;
}

// The trace pod each sampled pod copies: its name without the "#<i>" suffix.
std::vector<std::string> fill_origins(const std::vector<PodSpec>& pods, size_t from, size_t to) {
  std::vector<std::string> n;
  for (size_t i = from; i < to; ++i)
    n.push_back(pods[i].name.str().substr(0, pods[i].name.view().find('#')));
  std::sort(n.begin(), n.end());
  return n;
}

TEST(FillSampler, TunesUpUntilTheDrawThatWouldPassTheGoal) {
  // One share-500 pod, capacity 4, target 1 -> goal 4000 milli: the original and 7 draws make
  // exactly 4000; the 9th draw would make 4500 and is dropped.
  const std::vector<PodSpec> trace = {pod("s", 0, 5).milli(500)};
  const std::vector<PodSpec> out = sample_fill(trace, 4, 1.0, 3);
  ASSERT_EQ(out.size(), 8U);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].name, "s#" + std::to_string(i));
    EXPECT_DOUBLE_EQ(out[i].arrival_s, static_cast<double>(i));
    EXPECT_EQ(out[i].gpu_milli, 500);
  }
  // Whole GPUs, capacity 2, target 1.3 -> goal 2600: 1000 + 1000; a third would be 3000.
  EXPECT_EQ(sample_fill(std::vector<PodSpec>{pod("w", 0, 5)}, 2, 1.3, 1).size(), 2U);
  // 2-GPU pods, capacity 5, target 1 -> goal 5000. The paper's tuneUpPods checks a draw's
  // share of ONE GPU against the goal but adds all its GPUs: 2000, +2000 (3000 <= 5000),
  // +2000 (5000 <= 5000) = 6000, then 7000 > 5000 stops. Three pods, 6 GPUs of demand.
  const auto two = sample_fill(std::vector<PodSpec>{pod("d", 0, 5).gpus(2)}, 5, 1.0, 1);
  EXPECT_EQ(two.size(), 3U);
  EXPECT_DOUBLE_EQ(demand_of(two, two.size()), 6.0);
}

TEST(FillSampler, EveryOriginalOnceFirstThenDrawsFromTheTrace) {
  // Demand of the originals: 0 + 1 + 0.25 + 2 + 0.7 = 3.95 GPUs, below 3 x 1.5 = 4.5.
  const std::vector<PodSpec> trace = {pod("c", 0, 5).gpus(0).cpu(1000), pod("w", 0, 5),
                                      pod("s", 0, 5).milli(250), pod("d", 0, 5).gpus(2),
                                      pod("t", 0, 5).milli(700)};
  const std::vector<std::string> all = {"c", "d", "s", "t", "w"};
  std::set<std::vector<std::string>> orders;  // of the originals, seed by seed
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const std::vector<PodSpec> out = sample_fill(trace, 3, 1.5, seed);
    ASSERT_GE(out.size(), trace.size()) << seed;
    EXPECT_EQ(fill_origins(out, 0, trace.size()), all) << seed;
    for (size_t i = trace.size(); i < out.size(); ++i)
      EXPECT_TRUE(std::binary_search(all.begin(), all.end(), fill_origins(out, i, i + 1)[0]));
    // Stopped before the draw whose share of one GPU would pass the goal: at most the last
    // draw's other GPUs over it.
    const PodSpec& last = out.back();
    EXPECT_LE(demand_of(out, out.size()), 4.5 + std::max(last.gpu_count - 1, 0)) << seed;
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].name.str().substr(1), "#" + std::to_string(i)) << seed;
      EXPECT_DOUBLE_EQ(out[i].arrival_s, static_cast<double>(i));
      EXPECT_DOUBLE_EQ(out[i].duration_s, 1.0);
    }
    std::vector<std::string> first;
    for (size_t i = 0; i < trace.size(); ++i) first.push_back(out[i].name.str().substr(0, 1));
    orders.insert(first);
  }
  EXPECT_GT(orders.size(), 5U);  // the originals are shuffled, seed by seed
}

TEST(FillSampler, TunesDownByRemovingPodsWhenTheOriginalsPassTheGoal) {
  // Ten whole-GPU pods and two CPU-only ones on 4 GPUs x 1.5: 10 GPUs > 6, so pods go until
  // the demand is 6 GPUs at most; whole GPUs stop at exactly 6.
  std::vector<PodSpec> trace;
  for (int i = 0; i < 10; ++i) trace.push_back(pod("w" + std::to_string(i), 0, 5));
  trace.push_back(pod("c0", 0, 5).gpus(0).cpu(1000));
  trace.push_back(pod("c1", 0, 5).gpus(0).cpu(1000));
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<PodSpec> out = sample_fill(trace, 4, 1.5, seed);
    EXPECT_DOUBLE_EQ(demand_of(out, out.size()), 6.0) << seed;
    std::vector<std::string> origins = fill_origins(out, 0, out.size());
    EXPECT_EQ(std::adjacent_find(origins.begin(), origins.end()), origins.end());  // no repeats
    EXPECT_LE(out.size(), 8U);
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_DOUBLE_EQ(out[i].arrival_s, static_cast<double>(i));
  }
  // Exactly at the goal: every original, nothing added or removed.
  EXPECT_EQ(sample_fill(trace, 4, 2.5, 1).size(), trace.size());
}

TEST(FillSampler, DeterministicBySeedAndIndependentOfTheTraceOrder) {
  const std::vector<PodSpec> trace = {pod("a", 0, 5).gpus(0).cpu(1), pod("b", 0, 5),
                                      pod("c", 0, 5).milli(100), pod("d", 0, 5).milli(700)};
  const auto a = fill_names(sample_fill(trace, 8, 1.3, 42));
  EXPECT_EQ(a, fill_names(sample_fill(trace, 8, 1.3, 42)));
  EXPECT_NE(a, fill_names(sample_fill(trace, 8, 1.3, 43)));
  // Ordered by name before the shuffle, as SortClusterPods does: a permuted trace, same draw.
  const std::vector<PodSpec> permuted = {trace[2], trace[0], trace[3], trace[1]};
  EXPECT_EQ(a, fill_names(sample_fill(permuted, 8, 1.3, 42)));
}

TEST(FillSampler, EmptyWhenTheTraceHasNoGpuPods) {
  EXPECT_TRUE(sample_fill({}, 4, 1.0, 1).empty());
  const std::vector<PodSpec> cpu_only = {pod("c", 0, 5).gpus(0).cpu(1000)};
  EXPECT_TRUE(sample_fill(cpu_only, 4, 1.0, 1).empty());
}

// --- the engine in fill mode ---

EngineConfig fill_config(double sample_interval = 0) {
  EngineConfig c;
  c.fill = true;
  c.sample_interval_s = sample_interval;
  return c;
}

// One 2-GPU node, gpu-share, first-fit. Pods at 0..3: whole GPU, 600, 600, 300.
// GPUs: p0 -> GPU0 {0, 1000}; p1 -> GPU1 {0, 400}; p2 (600) has no room: fails; p3 -> GPU1
// {0, 100}. Target from the pods: 600 x2 (0.5), then the tie 1000/300, larger shape first:
// 1000 (0.25), 300 (0.25); 4 pods, 95% = 3.8 keeps all three.
// F: {0, 1000}: 0 (every shape fits, the 0 GPU adds nothing). {0, 400}: 600 cannot fit: 400;
// 300 fits: 0; 1000 cannot: 400 -> 0.5*400 + 0.25*400 = 300. {0, 100}: nothing fits: 100.
std::vector<PodSpec> fill_pods() {
  return {pod("p0", 0, 1), pod("p1", 1, 1).milli(600), pod("p2", 2, 1).milli(600),
          pod("p3", 3, 1).milli(300)};
}

RunResult fill_run(double sample_interval = 0) {
  return testing::run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), fill_pods(), "first-fit",
                      testing::gpu_share(), fill_config(sample_interval));
}

TEST(FillEngine, OneAttemptAndNothingFinishes) {
  const RunResult r = fill_run();
  EXPECT_EQ(r.pods[2].status, PodStatus::kUnschedulable);
  EXPECT_EQ(r.reason_of(2), "no room when it arrived (fill experiment: one attempt)");
  for (size_t i : {0U, 1U, 3U}) {
    EXPECT_EQ(r.pods[i].status, PodStatus::kRunning) << i;
    EXPECT_DOUBLE_EQ(r.pods[i].finish_s, -1.0) << i;
    EXPECT_DOUBLE_EQ(r.pods[i].start_s, static_cast<double>(i)) << i;
  }
  EXPECT_EQ(testing::gpus_of(r, 0), std::vector<int>{0});
  EXPECT_EQ(testing::gpus_of(r, 1), std::vector<int>{1});
  EXPECT_EQ(testing::gpus_of(r, 3), std::vector<int>{1});
  EXPECT_EQ(r.summary.completed, 0U);
  EXPECT_EQ(r.summary.running_at_end, 3U);
  EXPECT_EQ(r.summary.unschedulable, 1U);
  EXPECT_EQ(r.summary.placement_attempts, 4U);  // p2 was tried once, never again
  EXPECT_EQ(
      r.summary.not_placed_reasons.at("no room when it arrived (fill experiment: one attempt)"),
      1U);
  EXPECT_DOUBLE_EQ(r.summary.window_end_s, 3.0);  // the last arrival; no departures follow
}

TEST(FillEngine, FragmentationMeasuredAgainstTheTargetPodsWhenGiven) {
  // One share-500 pod on a 2-GPU node leaves GPUs {500, 1000}. Against its own shape nothing
  // is fragmented; against a whole-GPU target (the trace, in a fill scenario) GPU 0's 500 is.
  const ClusterSpec cluster = cluster_of({node_group("n", 1, "A100-80GB", 2)});
  const std::vector<PodSpec> pods = {pod("p0", 0, 1).milli(500)};
  const std::vector<PodSpec> trace = {pod("t", 0, 1)};
  const auto mode = make_sharing_mode(testing::gpu_share());
  auto run_with = [&](std::span<const PodSpec> target) {
    PlacementPolicy placement = build_placement(*placement_preset("first-fit"));
    RunInputs in{cluster, testing::catalog(), pods, *mode, fill_config(), 1};
    in.target_pods = target;
    return run_simulation(in, placement);
  };
  const RunResult own = run_with({});
  ASSERT_EQ(own.fill_curve.size(), 1U);
  EXPECT_DOUBLE_EQ(own.fill_curve[0].fragmented, 0.0);
  const RunResult traced = run_with(trace);
  ASSERT_EQ(traced.fill_curve.size(), 1U);
  EXPECT_DOUBLE_EQ(traced.fill_curve[0].fragmented, 0.5);
}

TEST(FillEngine, CurveHasOnePointPerPod) {
  const RunResult r = fill_run();
  ASSERT_EQ(r.fill_curve.size(), 4U);
  const double arrived[] = {1.0, 1.6, 2.2, 2.5};
  const double allocated[] = {1.0, 1.6, 1.6, 1.9};
  const double fragmented[] = {0.0, 0.3, 0.3, 0.1};
  const double failed[] = {0.0, 0.0, 0.6, 0.6};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(r.fill_curve[i].arrived, arrived[i], 1e-12) << i;
    EXPECT_NEAR(r.fill_curve[i].allocated, allocated[i], 1e-12) << i;
    EXPECT_NEAR(r.fill_curve[i].fragmented, fragmented[i], 1e-12) << i;
    EXPECT_NEAR(r.fill_curve[i].failed, failed[i], 1e-12) << i;
  }
}

TEST(FillEngine, SummaryAtFullAndAtEnd) {
  const RunResult r = fill_run();
  ASSERT_TRUE(r.summary.fill.has_value());
  const FillSummary& f = *r.summary.fill;
  EXPECT_DOUBLE_EQ(f.capacity_gpus, 2.0);
  // 100%: the first point with arrived >= 2 is p2's (2.2): 1.6/2, 0.3/2, 0.6/2.
  EXPECT_NEAR(f.allocated_at_full, 0.8, 1e-12);
  EXPECT_NEAR(f.fragmented_at_full, 0.15, 1e-12);
  EXPECT_NEAR(f.failed_at_full, 0.3, 1e-12);
  // End: 2.5/2, 1.9/2, 0.1/2, 0.6/2.
  EXPECT_NEAR(f.arrived_at_end, 1.25, 1e-12);
  EXPECT_NEAR(f.allocated_at_end, 0.95, 1e-12);
  EXPECT_NEAR(f.fragmented_at_end, 0.05, 1e-12);
  EXPECT_NEAR(f.failed_at_end, 0.3, 1e-12);
  // Time-weighted over [0, 3]: F is 0 on [0,1), 300 on [1,3) -> 600 / (2000 * 3) = 0.1;
  // allocation 1000 + 1600 + 1600 unit-seconds / (2000 * 3) = 0.7.
  EXPECT_NEAR(r.summary.fragmentation_ratio, 0.1, 1e-12);
  EXPECT_NEAR(r.summary.allocation_ratio, 0.7, 1e-12);
}

TEST(FillEngine, SamplesCarryTheFragmentationRatio) {
  // Samples each second see the state after the events at that time: F/2000 per GPU milli.
  const RunResult r = fill_run(1.0);
  ASSERT_EQ(r.samples.size(), 4U);
  const double frag[] = {0.0, 0.15, 0.15, 0.05};
  const double alloc[] = {0.5, 0.8, 0.8, 0.95};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(r.samples[i].time_s, static_cast<double>(i));
    EXPECT_NEAR(r.samples[i].fragmentation_ratio, frag[i], 1e-12) << i;
    EXPECT_NEAR(r.samples[i].allocation_ratio, alloc[i], 1e-12) << i;
  }
}

TEST(FillEngine, CpuOnlyAndNeverFittingPods) {
  // A CPU-only pod adds no demand and keeps running; a 3-GPU pod on a 2-GPU cluster can never
  // fit: its 3 GPUs count as failed demand. Arrived never reaches 2 before the 3-GPU pod:
  // points {0, 1, 4}, allocated {0, 1, 1}, failed {0, 0, 3}.
  const std::vector<PodSpec> pods = {pod("c", 0, 1).gpus(0).cpu(1000), pod("w", 1, 1),
                                     pod("big", 2, 1).gpus(3)};
  const RunResult r = testing::run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), pods,
                                   "first-fit", testing::gpu_share(), fill_config());
  ASSERT_EQ(r.fill_curve.size(), 3U);
  EXPECT_DOUBLE_EQ(r.fill_curve[0].arrived, 0.0);
  EXPECT_DOUBLE_EQ(r.fill_curve[1].arrived, 1.0);
  EXPECT_DOUBLE_EQ(r.fill_curve[2].arrived, 4.0);
  EXPECT_DOUBLE_EQ(r.fill_curve[2].allocated, 1.0);
  EXPECT_DOUBLE_EQ(r.fill_curve[2].failed, 3.0);
  EXPECT_EQ(r.pods[0].status, PodStatus::kRunning);
  EXPECT_EQ(r.pods[2].status, PodStatus::kUnschedulable);
  EXPECT_EQ(r.reason_of(2).rfind("no node could ever hold it: ", 0), 0U) << r.reason_of(2);
  // 100% is first reached at the 3rd point (4 >= 2): allocated 1/2, failed 3/2.
  EXPECT_DOUBLE_EQ(r.summary.fill->allocated_at_full, 0.5);
  EXPECT_DOUBLE_EQ(r.summary.fill->failed_at_full, 1.5);
}

TEST(FillEngine, OutOfMemoryAfterPlacementCountsAsFailedDemand) {
  // gpu-share does not isolate memory: two 500-milli pods of 50 GiB each land on GPU 0 of an
  // 80 GB card (first-fit); the second overflows it and fails at once. Its 0.5 GPU of demand
  // is failed, so arrived (1.0) = allocated (0.5) + failed (0.5).
  const std::vector<PodSpec> pods = {pod("a", 0, 1).milli(500).gpu_mem(51200),
                                     pod("b", 1, 1).milli(500).gpu_mem(51200)};
  const RunResult r = testing::run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), pods,
                                   "first-fit", testing::gpu_share(), fill_config());
  ASSERT_EQ(r.fill_curve.size(), 2U);
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_DOUBLE_EQ(r.fill_curve[1].arrived, 1.0);
  EXPECT_DOUBLE_EQ(r.fill_curve[1].allocated, 0.5);
  EXPECT_DOUBLE_EQ(r.fill_curve[1].failed, 0.5);
}

TEST(FillEngine, NeverFullFallsBackToTheLastPoint) {
  // One share-500 pod on a 2-GPU node: arrived 0.5 < 2, so "at 100%" is the last point.
  const std::vector<PodSpec> pods = {pod("s", 0, 1).milli(500)};
  const RunResult r = testing::run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), pods,
                                   "first-fit", testing::gpu_share(), fill_config());
  ASSERT_TRUE(r.summary.fill.has_value());
  EXPECT_DOUBLE_EQ(r.summary.fill->allocated_at_full, 0.25);
  EXPECT_DOUBLE_EQ(r.summary.fill->allocated_at_end, 0.25);
  EXPECT_DOUBLE_EQ(r.summary.fill->arrived_at_end, 0.25);
  // Not a fill run: no fill summary, no curve.
  const RunResult plain = testing::run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), pods,
                                       "first-fit", testing::gpu_share());
  EXPECT_FALSE(plain.summary.fill.has_value());
  EXPECT_TRUE(plain.fill_curve.empty());
  EXPECT_EQ(plain.pods[0].status, PodStatus::kCompleted);
}

TEST(FillReports, CsvAndTable) {
  RunResult r = fill_run();
  r.policy = "ff";
  const std::vector<RunResult> runs = {r};
  EXPECT_EQ(fill_csv(runs),
            "policy,pods,arrived_gpus,allocated_gpus,fragmented_gpus,failed_gpus,arrived_ratio,"
            "allocated_ratio,fragmented_ratio,failed_ratio\n"
            "ff,1,1,1,0,0,0.5,0.5,0,0\n"
            "ff,2,1.6,1.6,0.3,0,0.8,0.8,0.15,0\n"
            "ff,3,2.2,1.6,0.3,0.6,1.1,0.8,0.15,0.3\n"
            "ff,4,2.5,1.9,0.1,0.6,1.25,0.95,0.05,0.3\n");
  const std::string table = fill_table(runs);
  const std::string row = table.substr(table.find('\n') + 1);
  EXPECT_EQ(row.substr(0, 2), "ff");
  // arrived, alloc/frag/failed at 100%, at the end, in order.
  size_t at = 0;
  for (const char* v : {"125.0%", "80.0%", "15.0%", "30.0%", "95.0%", "5.0%", "30.0%"}) {
    const size_t found = row.find(v, at);
    ASSERT_NE(found, std::string::npos) << v << " in " << row;
    at = found + 1;
  }
}

// --- mean over seeds ---

RunResult seed_result(size_t pods, size_t completed, size_t failed, size_t unschedulable,
                      double alloc, double frag) {
  RunResult r;
  r.policy = "fgd";
  r.summary.pods = pods;
  r.summary.completed = completed;
  r.summary.failed = failed;
  r.summary.unschedulable = unschedulable;
  r.summary.allocation_ratio = alloc;
  r.summary.fragmentation_ratio = frag;
  return r;
}

Distribution dist(size_t count, double mean, double p50, double p95, double p99, double max) {
  return Distribution{count, mean, p50, p95, p99, max};
}

TEST(FillMeanOverSeeds, MeansOfRatiosRoundedCountsDistributionsAndFill) {
  RunResult a = seed_result(3, 1, 0, 2, 0.5, 0.1);
  RunResult b = seed_result(4, 2, 1, 1, 0.7, 0.2);
  a.summary.jct_s = dist(2, 10, 8, 12, 12, 12);
  b.summary.jct_s = dist(4, 20, 16, 30, 32, 40);
  b.summary.queue_delay_s = dist(1, 5, 5, 5, 5, 5);  // only seed b has queue delays
  a.summary.slo_attainment = 0.5;                    // only seed a has SLO pods
  FillSummary fa, fb;
  fa.capacity_gpus = fb.capacity_gpus = 4;
  fa.arrived_at_end = fb.arrived_at_end = 1.3;
  fa.allocated_at_full = 0.8, fb.allocated_at_full = 0.6;
  fa.failed_at_end = 0.2, fb.failed_at_end = 0.4;
  fa.fragmented_at_end = 0.05, fb.fragmented_at_end = 0.15;
  a.summary.fill = fa;
  b.summary.fill = fb;
  // Capped modes: isolation error and neighbour failures; reasons pods were not placed.
  a.summary.isolation_error = dist(2, 0.02, 0.01, 0.05, 0.05, 0.05);
  b.summary.isolation_error = dist(4, 0.04, 0.03, 0.07, 0.09, 0.11);
  a.summary.neighbour_failures = 3;
  b.summary.neighbour_failures = 0;
  a.summary.not_placed_reasons["out of memory"] = 2;
  b.summary.not_placed_reasons["out of memory"] = 4;
  b.summary.not_placed_reasons["no node could ever hold it"] = 1;
  // A second policy, to check policies are averaged index by index.
  RunResult a2 = seed_result(10, 10, 0, 0, 0.2, 0.0);
  RunResult b2 = seed_result(20, 20, 0, 0, 0.4, 0.0);
  a2.policy = b2.policy = "ff";
  const std::vector<SeedRuns> seeds = {{nullptr, {a, a2}}, {nullptr, {b, b2}}};
  const std::vector<RunResult> m = mean_over_seeds(seeds);
  ASSERT_EQ(m.size(), 2U);
  const RunSummary& s = m[0].summary;
  EXPECT_EQ(m[0].policy, "fgd");
  // Counts: (3+4)/2 = 3.5 -> 4; (1+2)/2 -> 2; (0+1)/2 = 0.5 -> 1 (half away from zero); 1.5 -> 2.
  EXPECT_EQ(s.pods, 4U);
  EXPECT_EQ(s.completed, 2U);
  EXPECT_EQ(s.failed, 1U);
  EXPECT_EQ(s.unschedulable, 2U);
  EXPECT_NEAR(s.allocation_ratio, 0.6, 1e-12);
  EXPECT_NEAR(s.fragmentation_ratio, 0.15, 1e-12);
  // JCT: both seeds have values: (10+20)/2, (8+16)/2, (12+30)/2, (12+32)/2, (12+40)/2.
  EXPECT_DOUBLE_EQ(s.jct_s.mean, 15.0);
  EXPECT_DOUBLE_EQ(s.jct_s.p50, 12.0);
  EXPECT_DOUBLE_EQ(s.jct_s.p95, 21.0);
  EXPECT_DOUBLE_EQ(s.jct_s.p99, 22.0);
  EXPECT_DOUBLE_EQ(s.jct_s.max, 26.0);
  EXPECT_GT(s.jct_s.count, 0U);
  // Queue delay: only seed b has values: its own, not halved.
  EXPECT_DOUBLE_EQ(s.queue_delay_s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.queue_delay_s.p99, 5.0);
  EXPECT_GT(s.queue_delay_s.count, 0U);
  EXPECT_DOUBLE_EQ(s.isolation_error.mean, 0.03);
  EXPECT_DOUBLE_EQ(s.isolation_error.max, 0.08);
  EXPECT_EQ(s.isolation_error.count, 3U);
  EXPECT_EQ(s.neighbour_failures, 2U);  // 1.5 -> 2
  EXPECT_EQ(s.not_placed_reasons.at("out of memory"), 3U);
  EXPECT_EQ(s.not_placed_reasons.at("no node could ever hold it"), 1U);  // 0.5 -> 1
  // Slowdown: no seed has values: stays empty.
  EXPECT_EQ(s.slowdown.count, 0U);
  // SLO: only seed a has it: 0.5.
  ASSERT_TRUE(s.slo_attainment.has_value());
  EXPECT_DOUBLE_EQ(*s.slo_attainment, 0.5);
  // Fill: means of the figures.
  ASSERT_TRUE(s.fill.has_value());
  EXPECT_DOUBLE_EQ(s.fill->capacity_gpus, 4.0);
  EXPECT_NEAR(s.fill->arrived_at_end, 1.3, 1e-12);
  EXPECT_NEAR(s.fill->allocated_at_full, 0.7, 1e-12);
  EXPECT_NEAR(s.fill->failed_at_end, 0.3, 1e-12);
  EXPECT_NEAR(s.fill->fragmented_at_end, 0.1, 1e-12);
  // The second policy: 15 pods, 15 completed, allocation 0.3, no fill.
  EXPECT_EQ(m[1].policy, "ff");
  EXPECT_EQ(m[1].summary.pods, 15U);
  EXPECT_EQ(m[1].summary.completed, 15U);
  EXPECT_NEAR(m[1].summary.allocation_ratio, 0.3, 1e-12);
  EXPECT_FALSE(m[1].summary.fill.has_value());
  EXPECT_FALSE(m[1].summary.slo_attainment.has_value());
  EXPECT_TRUE(mean_over_seeds({}).empty());
}

// --- a scenario with seeds and fill ---

class FillScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("slicelab-fill-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "fill.yaml").string();
    std::ofstream(path_) << R"(name: fill-seeds
seeds: [1, 2]
cluster:
  node_groups:
    - {name: a, count: 2, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 32000, memory_mib: 64Gi}
workload:
  pods:
    - {name: s, duration: 1m, gpu_count: 1, gpu_milli: 250}
    - {name: w, duration: 1m, gpu_count: 1}
    - {name: d, duration: 1m, gpu_count: 2}
    - {name: c, duration: 1m, cpu_milli: 1000}
  fill: {target: 1.5}
policies:
  - {name: fgd, placement: fgd, sharing: gpu-share}
  - {name: ff, placement: first-fit, sharing: gpu-share}
)";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::vector<std::string> names(const std::vector<PodSpec>& pods) {
    std::vector<std::string> n;
    n.reserve(pods.size());
    for (const auto& p : pods) n.push_back(p.name.str());
    return n;
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(FillScenario, SeedsGiveDifferentPodsFilledToTheTarget) {
  const Scenario sc = load_scenario(path_);
  EXPECT_EQ(sc.seeds, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(sc.seed, 1U);  // no `seed:`: the first of `seeds`
  EXPECT_TRUE(sc.engine.fill);
  ASSERT_EQ(sc.policies.size(), 2U);
  EXPECT_EQ(sc.policies[0].sharing.kind, "gpu-share");
  // 4 GPUs x 1.5 = 6 GPUs of demand at most, past it only by a last 2-GPU draw's second GPU.
  EXPECT_LE(demand_of(sc.pods, sc.pods.size()), 7.0);
  EXPECT_GT(sc.pods.size(), 4U);  // the originals make 3.25 GPUs: draws were appended
  // The same draw as sample_fill over the inline pods with the scenario's seed.
  const std::vector<PodSpec> trace = {pod("s", 0, 60).milli(250), pod("w", 0, 60),
                                      pod("d", 0, 60).gpus(2), pod("c", 0, 60).gpus(0).cpu(1000)};
  EXPECT_EQ(names(sc.pods), names(sample_fill(trace, 4, 1.5, 1)));
  // FGD's target comes from the inline pods themselves, not the sample.
  EXPECT_EQ(names(sc.target_pods), (std::vector<std::string>{"s", "w", "d", "c"}));

  const Scenario sc2 = load_scenario(path_, 2);
  EXPECT_EQ(sc2.seed, 2U);
  EXPECT_EQ(names(sc2.pods), names(sample_fill(trace, 4, 1.5, 2)));
  EXPECT_NE(names(sc.pods), names(sc2.pods));
}

}  // namespace
}  // namespace slicelab
