// Pins down the event engine: ordering at equal times, FIFO versus backfill, priorities,
// retries, `until`, unschedulable pods with their reasons, samples, and seeded determinism.
#include "sim/engine/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reports/results_writer.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/inputs/generator.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::gpus_of;
using testing::node_group;
using testing::one_gpu;
using testing::pod;
using testing::quiet_config;
using testing::run;
using testing::whole_card;

EngineConfig backfill() {
  EngineConfig c = quiet_config();
  c.backfill = true;
  return c;
}

// --- ordering ---

TEST(SimEngineOrdering, FinishBeforeArrivalAtTheSameInstant) {
  // a holds the only GPU until 100; b arrives at exactly 100. The finish is processed first, so
  // b is placed on arrival: no failed placement attempt is ever recorded (2 attempts, 2 pods).
  const auto r = run(one_gpu(), {pod("a", 0, 100), pod("b", 100, 10)});
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 110.0);
  EXPECT_FALSE(r.summary.first_failure_s.has_value());
  EXPECT_FALSE(r.summary.allocation_ratio_at_first_failure.has_value());
  EXPECT_EQ(r.summary.placement_attempts, 2U);
  EXPECT_EQ(r.summary.events, 4U);  // 2 arrivals, 2 finishes
  EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.max, 0.0);
}

TEST(SimEngineOrdering, PodsArrivingTogetherAreTakenInListOrder) {
  const auto r = run(one_gpu(), {pod("a", 0, 10), pod("b", 0, 10), pod("c", 0, 10)});
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 10.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 20.0);
}

TEST(SimEngineOrdering, FifoTiesGoByArrivalNotByListOrder) {
  // Listed out of arrival order: "late" (listed first) arrives at 20, "early" at 10, both behind
  // the blocker. Strict FIFO by arrival runs early at 100 and late at 110.
  const auto r =
      run(one_gpu(), {pod("late", 20, 10), pod("blocker", 0, 100), pod("early", 10, 10)});
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 0.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 110.0);
}

// One node with 2 GPUs. a (1 GPU, 100 s) at 0; b (2 GPUs, 50 s) at 1 cannot fit until a ends;
// c (1 GPU, 10 s) at 2 would fit on the free GPU.
std::vector<PodSpec> blocked_head_workload() {
  return {pod("a", 0, 100), pod("b", 1, 50).gpus(2), pod("c", 2, 10)};
}

TEST(SimEngineQueue, FifoBlockedHeadBlocksSmallerPodBehindIt) {
  // FIFO: c waits behind b. At 100 b takes both GPUs (100-150), then c runs 150-160.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), blocked_head_workload());
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 150.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 150.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 160.0);
  // Queue delays 0, 99, 148.
  EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.max, 148.0);
  EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.mean, (0 + 99 + 148) / 3.0);
  EXPECT_DOUBLE_EQ(*r.summary.first_failure_s, 1.0);
}

TEST(SimEngineQueue, BackfillLetsTheSmallerPodPass) {
  // Backfill: c runs at once (2-12); b still starts when a ends.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), blocked_head_workload(),
                     "first-fit", whole_card(), backfill());
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 2.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 12.0);
  EXPECT_EQ(gpus_of(r, 2), (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 150.0);
  EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.max, 99.0);
}

TEST(SimEngineQueue, BackfillRetriesWaitingPodsInQueueOrderWhenCapacityFrees) {
  // Backfill can starve a wide head: each freed GPU goes to the next 1-GPU pod in line.
  auto pods = blocked_head_workload();
  pods.push_back(pod("d", 3, 500));  // takes the free GPU at 3 ... until 503
  pods.push_back(pod("e", 4, 5));    // waits behind b and d's GPU
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 2)}), pods, "first-fit",
                     whole_card(), backfill());
  // c at 2 (GPU 1, until 12); d at 3 finds no GPU (a on 0, c on 1) and waits; e waits.
  // At 12 c ends: b (2 GPUs) still blocked, d (queued before e) takes GPU 1 until 512.
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 2.0);
  EXPECT_DOUBLE_EQ(r.pods[3].start_s, 12.0);
  EXPECT_DOUBLE_EQ(r.pods[3].finish_s, 512.0);
  // At 100 a ends: b still cannot get 2 GPUs; e (1 GPU) backfills GPU 0 until 105.
  EXPECT_DOUBLE_EQ(r.pods[4].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[4].finish_s, 105.0);
  // b gets both GPUs only when d ends at 512.
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 512.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 562.0);
}

TEST(SimEngineQueue, HigherPriorityGoesFirst) {
  // a holds the GPU until 100. b (prio 0) at 10, c (prio 5) at 20, d (prio 5) at 30.
  // Order after 100: c (100-200), d (200-300), b (300-400).
  const std::vector<PodSpec> pods = {pod("a", 0, 100), pod("b", 10, 100).priority(0),
                                     pod("c", 20, 100).priority(5), pod("d", 30, 100).priority(5)};
  for (const bool bf : {false, true}) {
    EngineConfig config = quiet_config();
    config.backfill = bf;
    const auto r = run(one_gpu(), pods, "first-fit", whole_card(), config);
    EXPECT_DOUBLE_EQ(r.pods[2].start_s, 100.0) << "backfill=" << bf;
    EXPECT_DOUBLE_EQ(r.pods[3].start_s, 200.0) << "backfill=" << bf;
    EXPECT_DOUBLE_EQ(r.pods[1].start_s, 300.0) << "backfill=" << bf;
    EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 400.0) << "backfill=" << bf;
  }
}

TEST(SimEngineQueue, NegativePriorityGoesLast) {
  const auto r =
      run(one_gpu(), {pod("a", 0, 10), pod("low", 1, 10).priority(-3), pod("normal", 2, 10)});
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 10.0);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 20.0);
}

TEST(SimEngineQueue, PodsAreRetriedWhenCpuFrees) {
  // CPU-only pods on a node of 10000 CPU milli: a takes 6000 (0-50), b asks 6000 at 5 and runs
  // when a ends; c (3000) at 6 is behind b in FIFO and runs alongside b from 50.
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1, 10000)}),
                     {pod("a", 0, 50).gpus(0).cpu(6000), pod("b", 5, 50).gpus(0).cpu(6000),
                      pod("c", 6, 50).gpus(0).cpu(3000)});
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 50.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 50.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 100.0);
  EXPECT_EQ(r.pods[1].node, 0);
  EXPECT_TRUE(gpus_of(r, 1).empty());
}

TEST(SimEngineQueue, MultiGpuPodWaitsForEnoughGpusOnOneNode) {
  // Two nodes of 2 GPUs. First-fit puts x and y on node 0 (GPUs 0, 1) and z on node 1.
  // w (2 GPUs) at 1 needs one node with 2 idle GPUs: at 20 (x ends) each node has one; at 30
  // (y ends) node 0 has two.
  const auto r = run(cluster_of({node_group("n", 2, "A100-80GB", 2)}),
                     {pod("x", 0, 20), pod("y", 0, 30), pod("z", 0, 100), pod("w", 1, 10).gpus(2)});
  EXPECT_EQ(r.pods[0].node, 0);
  EXPECT_EQ(r.pods[1].node, 0);
  EXPECT_EQ(r.pods[2].node, 1);
  EXPECT_DOUBLE_EQ(r.pods[3].start_s, 30.0);
  EXPECT_EQ(r.pods[3].node, 0);
  EXPECT_EQ(gpus_of(r, 3), (std::vector<int>{0, 1}));
}

// --- until ---

TEST(SimEngineUntil, LeavesPodsRunningAndPendingWithReasons) {
  // a runs from 0; b waits behind it; c arrives after the end; the run stops at 50.
  EngineConfig config = quiet_config();
  config.until_s = 50;
  const auto r = run(one_gpu(), {pod("a", 0, 100), pod("b", 10, 100), pod("c", 500, 10)},
                     "first-fit", whole_card(), config);
  EXPECT_EQ(r.pods[0].status, PodStatus::kRunning);
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, -1.0);
  EXPECT_EQ(r.reason_of(0), "");
  EXPECT_EQ(r.pods[1].status, PodStatus::kPending);
  EXPECT_EQ(r.reason_of(1), "still pending when the run ended at 50s");
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, -1.0);
  EXPECT_EQ(r.pods[2].status, PodStatus::kPending);
  EXPECT_EQ(r.reason_of(2), "arrives after the run ended at 50s");

  const RunSummary& s = r.summary;
  EXPECT_EQ(s.completed, 0U);
  EXPECT_EQ(s.running_at_end, 1U);
  EXPECT_EQ(s.pending_at_end, 2U);
  EXPECT_EQ(s.not_placed_reasons,
            (std::map<std::string, size_t>{{"not placed before the run ended", 2}}));
  EXPECT_DOUBLE_EQ(s.window_start_s, 0.0);
  EXPECT_DOUBLE_EQ(s.window_end_s, 50.0);
  EXPECT_DOUBLE_EQ(s.allocation_ratio, 1.0);
  EXPECT_EQ(s.queue_delay_s.count, 1U);  // a started; b never did
  EXPECT_EQ(s.jct_s.count, 0U);
  EXPECT_DOUBLE_EQ(s.gpu_hours_provisioned, 50.0 / 3600.0);
  EXPECT_EQ(s.events, 2U);
}

// Without `until`, queueing can carry a run past its last arrival without bound; the run stops
// at the simulation horizon (workloads/input_limits.h) with the rest reported as unfinished.
TEST(SimEngineUntil, TheHorizonEndsARunThatQueuesPastIt) {
  EngineConfig config = quiet_config();
  config.sample_interval_s = 86400;
  const double d = 200 * 86400.0;  // three 200-day pods in a row on one GPU: 600 days
  const auto r = run(one_gpu(), {pod("a", 0, d), pod("b", 0, d), pod("c", 0, d)}, "first-fit",
                     whole_card(), config);
  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[1].status, PodStatus::kRunning);
  EXPECT_EQ(r.pods[2].status, PodStatus::kPending);
  EXPECT_DOUBLE_EQ(r.summary.window_end_s, kHorizonS);
  EXPECT_LE(r.samples.size(), 366U);
}

// The loader bounds the samples of a run that ends when its last pod would; the engine bounds
// those of a run that queues longer (here 2e7 one-second samples before the horizon).
TEST(SimEngineSamples, TooManySamplesIsAnErrorNotExhaustedMemory) {
  EngineConfig config = quiet_config();
  config.sample_interval_s = 1;
  const double d = 200 * 86400.0;
  try {
    run(one_gpu(), {pod("a", 0, d), pod("b", 0, d)}, "first-fit", whole_card(), config);
    ADD_FAILURE() << "ran to the end";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "the run reached 1000000 time-series samples at 1e+06s of simulated time (queueing "
              "kept it going); raise engine.sample_interval or set engine.until");
  }
}

TEST(SimEngineUntil, EndingBeforeTheFirstArrivalGivesAnEmptyWindow) {
  // Nothing happens before 50: the window is empty, never negative, and costs nothing.
  EngineConfig config = quiet_config();
  config.until_s = 50;
  const auto r = run(one_gpu(), {pod("a", 100, 10)}, "first-fit", whole_card(), config);
  EXPECT_EQ(r.pods[0].status, PodStatus::kPending);
  EXPECT_GE(r.summary.window_end_s, r.summary.window_start_s);
  EXPECT_GE(r.summary.gpu_hours_provisioned, 0.0);
  EXPECT_GE(r.summary.cost_usd, 0.0);
}

// --- unschedulable pods ---

// Node "a-0": 2 x A100-80GB (81920 MiB), 16000 CPU milli, 65536 MiB.
// Node "t-0": 1 x T4 (15360 MiB), 8000 CPU milli, 32768 MiB.
ClusterSpec two_models() {
  return cluster_of(
      {node_group("a", 1, "A100-80GB", 2, 16000, 65536), node_group("t", 1, "T4", 1, 8000, 32768)});
}

TEST(SimEngineUnschedulable, EachConstraintGivesItsReason) {
  const std::vector<std::pair<PodSpec, std::string>> cases = {
      {pod("h100", 0, 1).models({"H100-80GB"}), "no node has an allowed GPU model"},
      {pod("unknown-model", 0, 1).models({"Z80"}), "no node has an allowed GPU model"},
      {pod("gpu-mem", 0, 1).gpu_mem(100000),
       "needs 100000 MiB of GPU memory, the largest allowed GPU has 81920 MiB"},
      {pod("t4-mem", 0, 1).gpu_mem(20000).models({"T4"}),
       "needs 20000 MiB of GPU memory, the largest allowed GPU has 15360 MiB"},
      {pod("gpus", 0, 1).gpus(3), "needs 3 GPUs on one node, the most an allowed node has is 2"},
      {pod("t4-gpus", 0, 1).gpus(2).models({"T4"}),
       "needs 2 GPUs on one node, the most an allowed node has is 1"},
      {pod("cpu", 0, 1).cpu(20000), "needs 20000 CPU milli, the most a suitable node has is 16000"},
      // The A100 node has the CPU but not the model; the T4 node has the model but not the CPU.
      {pod("t4-cpu", 0, 1).cpu(10000).models({"T4"}),
       "needs 10000 CPU milli, the most a suitable node has is 8000"},
      // Only the A100 node has 2 GPUs.
      {pod("2gpu-cpu", 0, 1).gpus(2).cpu(16001),
       "needs 16001 CPU milli, the most a suitable node has is 16000"},
      {pod("memory", 0, 1).mem(100000),
       "needs 100000 MiB of memory, the most a suitable node has is 65536 MiB"},
      {pod("cpu-only", 0, 1).gpus(0).cpu(16001),
       "needs 16001 CPU milli, the most a suitable node has is 16000"},
  };
  for (const auto& [spec, why] : cases) {
    const auto r = run(two_models(), {spec});
    ASSERT_EQ(r.pods.size(), 1U);
    EXPECT_EQ(r.pods[0].status, PodStatus::kUnschedulable) << spec.name;
    EXPECT_EQ(r.reason_of(0), "no node could ever hold it: " + why) << spec.name;
    EXPECT_DOUBLE_EQ(r.pods[0].start_s, -1.0) << spec.name;
    EXPECT_EQ(r.pods[0].node, -1) << spec.name;
    EXPECT_EQ(r.summary.unschedulable, 1U) << spec.name;
    EXPECT_EQ(r.summary.placement_attempts, 0U) << spec.name;
  }
}

TEST(SimEngineUnschedulable, PodsThatFitSomewhereAreNotUnschedulable) {
  // Each just fits one node of an empty cluster.
  for (const PodSpec& spec :
       {PodSpec(pod("a100-full", 0, 1).gpus(2).cpu(16000).mem(65536).gpu_mem(81920)),
        PodSpec(pod("t4-full", 0, 1).models({"T4"}).cpu(8000).mem(32768).gpu_mem(15360))}) {
    const auto r = run(two_models(), {spec});
    EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted) << spec.name;
  }
}

TEST(SimEngineUnschedulable, DoesNotBlockTheQueue) {
  // FIFO: the impossible pod arrives first; the feasible ones behind it run at once.
  const auto r =
      run(two_models(),
          {pod("x", 0, 10).gpus(3), pod("y", 0, 10), pod("z", 1, 10).gpus(2).models({"A100-80GB"})},
          "first-fit");
  EXPECT_EQ(r.pods[0].status, PodStatus::kUnschedulable);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 0.0);
  EXPECT_EQ(r.pods[1].node, 0);
  // z needs both A100 GPUs; y holds one until 10.
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 10.0);
  EXPECT_EQ(r.summary.unschedulable, 1U);
  EXPECT_EQ(r.summary.completed, 2U);
  EXPECT_EQ(r.summary.not_placed_reasons,
            (std::map<std::string, size_t>{
                {"no node could ever hold it: needs 3 GPUs on one node, the most an allowed node "
                 "has is 2",
                 1}}));
}

// --- speed scaling, samples, progress ---

TEST(SimEngineSpeed, SpeedScalingDividesRunTimeByRelativeSpeed) {
  // T4's relative speed is 0.20: 100 s of A100-80GB work takes 500 s; its slowdown stays 1.
  EngineConfig config = quiet_config();
  config.speed_scaling = true;
  const auto r = run(cluster_of({node_group("t", 1, "T4", 1)}), {pod("a", 0, 100)}, "first-fit",
                     whole_card(), config);
  EXPECT_NEAR(r.pods[0].finish_s, 500.0, 1e-9);
  EXPECT_NEAR(r.pods[0].solo_s, 500.0, 1e-9);
  EXPECT_NEAR(r.summary.slowdown.max, 1.0, 1e-12);

  const auto plain = run(cluster_of({node_group("t", 1, "T4", 1)}), {pod("a", 0, 100)});
  EXPECT_DOUBLE_EQ(plain.pods[0].finish_s, 100.0);
}

TEST(SimEngineSamples, SamplesSeeTheStateAfterAllEventsAtTheirTime) {
  // a (0-100) and b (100-200) on one GPU, samples every 40 s: 0, 40, 80, 120, 160, and a last
  // one at the end (200).
  EngineConfig config = quiet_config();
  config.sample_interval_s = 40;
  const auto r =
      run(one_gpu(), {pod("a", 0, 100), pod("b", 0, 100)}, "first-fit", whole_card(), config);
  ASSERT_EQ(r.samples.size(), 6U);
  const double times[] = {0, 40, 80, 120, 160, 200};
  for (size_t i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(r.samples[i].time_s, times[i]);
  // At 0 both have arrived: one runs, one waits.
  EXPECT_EQ(r.samples[0].running, 1U);
  EXPECT_EQ(r.samples[0].pending, 1U);
  EXPECT_DOUBLE_EQ(r.samples[0].allocation_ratio, 1.0);
  EXPECT_DOUBLE_EQ(r.samples[0].sm_utilization, 1.0);
  EXPECT_EQ(r.samples[3].running, 1U);
  EXPECT_EQ(r.samples[3].pending, 0U);
  EXPECT_EQ(r.samples[5].running, 0U);
  EXPECT_DOUBLE_EQ(r.samples[5].allocation_ratio, 0.0);
}

TEST(SimEngineSamples, UntilEndsTheSamplesToo) {
  EngineConfig config = quiet_config();
  config.sample_interval_s = 40;
  config.until_s = 130;
  const auto r =
      run(one_gpu(), {pod("a", 0, 100), pod("b", 0, 100)}, "first-fit", whole_card(), config);
  std::vector<double> times;
  for (const auto& s : r.samples) times.push_back(s.time_s);
  EXPECT_EQ(times, (std::vector<double>{0, 40, 80, 120, 130}));
}

TEST(SimEngineProgress, ReportsCompletionAtTheEnd) {
  std::vector<double> calls;
  const std::vector<PodSpec> pods = {pod("a", 0, 10)};
  auto placement = build_placement(*placement_preset("first-fit"));
  const auto mode = make_sharing_mode(whole_card());
  const ClusterSpec cluster = one_gpu();
  const RunInputs in{cluster, testing::catalog(), pods, *mode, quiet_config(), 0};
  const auto r = run_simulation(in, placement, [&](double f) { calls.push_back(f); });
  ASSERT_FALSE(calls.empty());
  EXPECT_DOUBLE_EQ(calls.back(), 1.0);
  EXPECT_EQ(r.placement, placement.describe());
  EXPECT_NE(r.placement.find("picker=first"), std::string::npos);
  EXPECT_EQ(r.sharing, "whole-card");
}

// --- invariants on a larger, queue-heavy run (exercises retries on many nodes) ---

struct Interval {
  double start, finish;
  int64_t amount;
};

// Largest sum of `amount` over intervals overlapping at any instant; [start, finish), so an
// interval ending at t does not overlap one starting at t.
int64_t peak_load(std::vector<Interval> v) {
  std::vector<std::pair<double, int64_t>> ev;
  for (const auto& i : v) {
    ev.emplace_back(i.start, i.amount);
    ev.emplace_back(i.finish, -i.amount);
  }
  std::sort(ev.begin(), ev.end());  // at equal times the negative (finish) sorts first
  int64_t load = 0, peak = 0;
  for (const auto& e : ev) peak = std::max(peak, load += e.second);
  return peak;
}

std::vector<PodSpec> busy_workload(bool with_memory) {
  GeneratorSpec g;
  g.pod_count = 2000;
  g.arrivals_per_hour = 400;
  auto add = [&](const char* name, double weight, int gpus, int64_t cpu, int64_t gpu_mem) {
    PodShape s;
    s.name = name;
    s.weight = weight;
    s.duration.kind = DurationDistribution::Kind::kExponential;
    s.duration.a = 600;
    s.duration.min_s = 1;
    s.request.gpu_count = gpus;
    s.request.cpu_milli = cpu;
    s.request.memory_mib = cpu * 4;
    s.request.gpu_memory_mib = with_memory ? gpu_mem : 0;
    g.shapes.push_back(s);
  };
  add("one", 5, 1, 4000, 30000);
  add("two", 2, 2, 8000, 50000);
  add("four", 1, 4, 16000, 20000);
  add("cpu", 1, 0, 6000, 0);
  return generate_pods(g, 17);
}

void check_invariants(const std::vector<PodSpec>& pods, const RunResult& r, int replicas,
                      bool fifo) {
  std::map<std::pair<int, int>, std::vector<Interval>> per_gpu, per_gpu_mem;
  std::map<int, std::vector<Interval>> per_node_cpu, per_node_mem;
  double last_start = -1;
  for (size_t i = 0; i < pods.size(); ++i) {
    const PodOutcome& o = r.pods[i];
    ASSERT_TRUE(o.status == PodStatus::kCompleted || o.status == PodStatus::kFailed) << i;
    ASSERT_GE(o.start_s, pods[i].arrival_s) << i;
    // Equal priorities, arrivals in list order: FIFO starts pods in arrival order.
    if (fifo) {
      EXPECT_GE(o.start_s, last_start) << i;
      last_start = o.start_s;
    }
    if (o.status == PodStatus::kFailed) continue;
    // finish = start + work / rate, rounded at the scale of the absolute time.
    const double eps = 1e-12 * std::max(1.0, o.finish_s);
    if (replicas == 1) {
      EXPECT_NEAR(o.finish_s - o.start_s, pods[i].duration_s, eps) << i;
    }
    EXPECT_GE(o.finish_s - o.start_s, pods[i].duration_s - eps) << i;
    const auto gpus = gpus_of(r, i);
    ASSERT_EQ(static_cast<int>(gpus.size()), pods[i].gpu_count) << i;
    EXPECT_EQ(std::set<int>(gpus.begin(), gpus.end()).size(), gpus.size()) << i;
    for (const int g : gpus) {
      per_gpu[{o.node, g}].push_back({o.start_s, o.finish_s, 1});
      per_gpu_mem[{o.node, g}].push_back({o.start_s, o.finish_s, pods[i].gpu_memory_mib});
    }
    per_node_cpu[o.node].push_back({o.start_s, o.finish_s, pods[i].cpu_milli});
    per_node_mem[o.node].push_back({o.start_s, o.finish_s, pods[i].memory_mib});
  }
  for (const auto& [gpu, v] : per_gpu) EXPECT_LE(peak_load(v), replicas);
  for (const auto& [gpu, v] : per_gpu_mem) EXPECT_LE(peak_load(v), 81920);
  for (const auto& [node, v] : per_node_cpu) EXPECT_LE(peak_load(v), 32000);
  for (const auto& [node, v] : per_node_mem) EXPECT_LE(peak_load(v), 131072);
}

TEST(SimEngineInvariants, WholeCardNeverOversubscribesAndFifoKeepsArrivalOrder) {
  const auto pods = busy_workload(false);
  const ClusterSpec cluster = cluster_of({node_group("n", 16, "A100-80GB", 4, 32000, 131072)});
  for (const char* preset : {"first-fit", "best-fit", "spread", "random"}) {
    for (const bool bf : {false, true}) {
      SCOPED_TRACE(std::string(preset) + (bf ? " backfill" : " fifo"));
      EngineConfig config = quiet_config();
      config.backfill = bf;
      const auto r = run(cluster, pods, preset, whole_card(), config, 5);
      EXPECT_EQ(r.summary.completed, pods.size());
      // The workload is heavy enough to queue: otherwise this test would prove little.
      EXPECT_GT(r.summary.queue_delay_s.p95, 600.0);
      check_invariants(pods, r, 1, !bf);
    }
  }
}

TEST(SimEngineInvariants, TimeSliceKeepsReplicasAndMemoryWithinTheGpu) {
  const auto pods = busy_workload(true);
  const ClusterSpec cluster = cluster_of({node_group("n", 16, "A100-80GB", 4, 32000, 131072)});
  for (const char* preset : {"first-fit", "best-fit"}) {
    SCOPED_TRACE(preset);
    const auto r = run(cluster, pods, preset, testing::time_slice(3, 0.05), quiet_config(), 5);
    EXPECT_GT(r.summary.failed, 0U);  // 30000 + 50000 + 30000 MiB on one GPU does not fit
    EXPECT_EQ(r.summary.completed + r.summary.failed, pods.size());
    check_invariants(pods, r, 3, true);
  }
}

// --- determinism ---

TEST(SimEngineDeterminism, SameSeedSameOutcomesOtherSeedOtherPlacements) {
  // Random placement of 40 one-GPU pods on 4 nodes of 2 GPUs.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 40; ++i) pods.push_back(pod("p" + std::to_string(i), i, 5 + i % 7));
  const ClusterSpec cluster = cluster_of({node_group("n", 4, "A100-80GB", 2)});
  auto nodes_of = [&](uint64_t seed) {
    const auto r = run(cluster, pods, "random", whole_card(), quiet_config(), seed);
    std::vector<int> out;
    for (size_t i = 0; i < r.pods.size(); ++i) {
      out.push_back(r.pods[i].node);
      for (const int g : gpus_of(r, i)) out.push_back(g);
    }
    return out;
  };
  EXPECT_EQ(nodes_of(3), nodes_of(3));
  EXPECT_NE(nodes_of(3), nodes_of(4));
}

std::string quickstart_path() {
  return std::string(SLICELAB_SOURCE_DIR) + "/scenarios/quickstart.yaml";
}

std::string summary_of(const Scenario& sc, int jobs) {
  std::vector<size_t> which;
  for (size_t i = 0; i < sc.policies.size(); ++i) which.push_back(i);
  const auto runs = run_policies(sc, which, jobs);
  return summary_json(sc, runs).dump(2) + pods_csv(sc, runs);
}

TEST(SimEngineDeterminism, QuickstartSummaryIsByteIdenticalAcrossRunsAndThreads) {
  const Scenario sc = load_scenario(quickstart_path());
  ASSERT_GE(sc.policies.size(), 2U);
  const std::string one = summary_of(sc, 1);
  EXPECT_EQ(one, summary_of(sc, 4));
  EXPECT_EQ(one, summary_of(load_scenario(quickstart_path()), 1));
}

TEST(SimEngineDeterminism, QuickstartWithAnotherSeedDiffers) {
  const Scenario a = load_scenario(quickstart_path());
  const Scenario b = load_scenario(quickstart_path(), 7);
  EXPECT_EQ(b.seed, 7U);
  std::vector<size_t> which;
  for (size_t i = 0; i < a.policies.size(); ++i) which.push_back(i);
  auto ja = summary_json(a, run_policies(a, which, 2));
  auto jb = summary_json(b, run_policies(b, which, 2));
  EXPECT_NE(ja.dump(), jb.dump());
  // Not only the seed field: the policies' results differ too.
  EXPECT_NE(ja["policies"].dump(), jb["policies"].dump());
}

}  // namespace
}  // namespace slicelab
