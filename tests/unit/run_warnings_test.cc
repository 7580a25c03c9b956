// Pins down run_warnings: identical placement decisions, scorer weights that cannot change a
// decision, and the idle replay, on hand-made runs and scenarios.
#include "reports/run_warnings.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;

// Three pods: 0 on node 0 GPU 1 at 0 s, 1 on node 1 GPUs 0 and 1 at 5 s, 2 unschedulable.
RunResult three_pods(const std::string& policy) {
  RunResult r;
  r.policy = policy;
  r.pods.resize(3);
  r.pod_gpus = {1, 0, 1};
  r.pods[0] = {.start_s = 0,
               .finish_s = 10,
               .node = 0,
               .gpu_begin = 0,
               .gpu_count = 1,
               .status = PodStatus::kCompleted};
  r.pods[1] = {.start_s = 5,
               .finish_s = 20,
               .node = 1,
               .gpu_begin = 1,
               .gpu_count = 2,
               .status = PodStatus::kCompleted};
  r.pods[2].status = PodStatus::kUnschedulable;
  return r;
}

TEST(RunWarnings, IdenticalDecisionsAreGroupedInRunOrder) {
  std::vector<RunResult> runs = {three_pods("a"), three_pods("b"), three_pods("c"),
                                 three_pods("d")};
  runs[1].pod_gpus = {0, 0, 1};   // b: pod 0 on GPU 0
  runs[1].pods[0].finish_s = 99;  // (finish times are not decisions)
  runs[3].pods[1].finish_s = 99;
  EXPECT_EQ(
      identical_decision_warnings(runs),
      (std::vector<std::string>{"a, c and d made identical placement decisions for all 3 pods"}));
}

TEST(RunWarnings, AnyDecisionDifferenceSeparatesTwoRuns) {
  const std::vector<RunResult> same = {three_pods("x"), three_pods("y")};
  EXPECT_EQ(
      identical_decision_warnings(same),
      (std::vector<std::string>{"x and y made identical placement decisions for all 3 pods"}));
  for (int change = 0; change < 4; ++change) {
    std::vector<RunResult> runs = {three_pods("x"), three_pods("y")};
    PodOutcome& o = runs[1].pods[1];
    if (change == 0) o.start_s = 6;
    if (change == 1) o.node = 0;
    if (change == 2) runs[1].pod_gpus[2] = 0;  // second GPU
    if (change == 3) o.status = PodStatus::kFailed;
    EXPECT_TRUE(identical_decision_warnings(runs).empty()) << change;
  }
}

TEST(RunWarnings, RunsWithoutPodOutcomesAreNotCompared) {
  std::vector<RunResult> means(2);
  means[0].policy = "a";
  means[1].policy = "b";
  EXPECT_TRUE(identical_decision_warnings(means).empty());
}

PlacementConfig scorers(std::vector<std::pair<std::string, int64_t>> s) {
  PlacementConfig c;
  c.scorers = std::move(s);
  return c;
}

TEST(RunWarnings, ALoneScorersWeightCannotMatter) {
  EXPECT_EQ(inert_weight_warning("weighted-binpack", scorers({{"binpack", 3}})),
            "weighted-binpack: the weight of binpack (3) cannot change a decision: it is the "
            "only scorer");
  // Weight 1 is the default: nothing set, nothing to warn about.
  EXPECT_EQ(inert_weight_warning("p", scorers({{"binpack", 1}})), "");
}

TEST(RunWarnings, WeightsWithACommonFactorDecideAsTheReducedOnes) {
  EXPECT_EQ(inert_weight_warning("p", scorers({{"binpack", 4}, {"spread", 2}, {"fgd", 6}})),
            "p: the weights of binpack (4), spread (2) and fgd (6) decide exactly as 2:1:3: only "
            "their ratios can change a decision");
  // Coprime weights: each can change a decision; no warning.
  EXPECT_EQ(inert_weight_warning("p", scorers({{"binpack", 3}, {"spread", 1}})), "");
  EXPECT_EQ(inert_weight_warning("p", scorers({{"binpack", 4}, {"spread", 6}, {"fgd", 9}})), "");
  EXPECT_EQ(inert_weight_warning("p", scorers({})), "");
}

// 2 GPUs; one pod of 1 GPU for 10 s and one of 2 x 0.5 GPU... : demand 10 + 2 x 20 x 0.25.
Scenario two_gpu_scenario() {
  Scenario sc;
  sc.cluster = cluster_of({node_group("n", 1, "A100-80GB", 2)});
  sc.pods = {testing::pod("a", 0, 10), testing::pod("b", 0, 20).milli(250)};
  sc.policies.resize(2);
  sc.policies[0].name = "p";
  sc.policies[1].name = "q";
  return sc;
}

RunResult windowed(const std::string& policy, double end_s, double allocation) {
  RunResult r;
  r.policy = policy;
  r.summary.window_end_s = end_s;
  r.summary.allocation_ratio = allocation;
  return r;
}

TEST(RunWarnings, DemandShareIsPodGpuTimeOverCapacityOverTheLatestWindow) {
  const Scenario sc = two_gpu_scenario();
  const std::vector<RunResult> runs = {windowed("p", 100, 0), windowed("q", 150, 0)};
  // (1 x 1 x 10 + 1 x 0.25 x 20) GPU-s over 2 GPUs x 150 s.
  EXPECT_DOUBLE_EQ(gpu_demand_share(sc, runs).value_or(-1), 15.0 / 300.0);
  EXPECT_FALSE(gpu_demand_share(sc, std::vector<RunResult>{windowed("p", 0, 0)}).has_value());
}

TEST(RunWarnings, IdleReplayIsWarnedBelowFivePercentOfDemand) {
  const Scenario sc = two_gpu_scenario();
  // 15 GPU-s over 2 GPUs x 1000 s = 0.75%: idle; the busiest run's allocation is quoted.
  const std::vector<RunResult> idle = {windowed("p", 1000, 0.0075), windowed("q", 1000, 0.004)};
  EXPECT_EQ(run_warnings(sc, idle),
            (std::vector<std::string>{
                "the cluster is nearly idle (0.75% allocated over 17 minutes): the trace is "
                "sparse for 2 GPUs; for openb traces use `fill:` (docs/fragmentation.md)"}));
  // 15 / (2 x 150) = 5%: not below the threshold.
  const std::vector<RunResult> busy = {windowed("p", 150, 0.05), windowed("q", 150, 0.05)};
  EXPECT_TRUE(run_warnings(sc, busy).empty());
  // A fill experiment is never warned about.
  Scenario fill = sc;
  fill.engine.fill = true;
  EXPECT_TRUE(run_warnings(fill, idle).empty());
}

}  // namespace
}  // namespace slicelab
