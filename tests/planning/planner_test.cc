// The planner through the simulator on a case computed by hand, the plan: block and --target
// parsing, and workload and cluster scaling.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "planning/capacity_planner.h"
#include "planning/plan_metrics.h"
#include "planning/plan_spec.h"
#include "planning/workload_scaling.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using testing::message_of;

// N identical one-GPU pods all arriving at t = 0, each running D seconds, whole cards, FIFO.
// With G GPUs they run in ceil(N/G) waves, so the largest queueing delay is (ceil(N/G) - 1) D.
// A target max delay T holds iff ceil(N/G) <= floor(T/D) + 1, i.e. G >= ceil(N / (floor(T/D)+1)).
std::string wave_scenario(int pods, int gpus_per_node, const std::string& plan) {
  std::string s = fmt::format(R"(name: waves
cluster:
  node_groups:
    - {{name: cpu, count: 1, cpu_milli: 4000, memory_mib: 4Gi}}
    - {{name: gpu, count: 1, gpu_model: A100-80GB, gpus_per_node: {}, cpu_milli: 64000, memory_mib: 256Gi}}
workload:
  pods:
)",
                              gpus_per_node);
  for (int i = 0; i < pods; ++i)
    s += fmt::format("    - {{name: p{}, arrival: 0, duration: 600, gpu_count: 1}}\n", i);
  s += R"(policies:
  - {name: best-fit, placement: best-fit}
  - {name: spread, placement: spread}
)";
  return s + plan;
}

class Planner : public testing::TempFilesTest {};

int hand_minimum_gpus(int n, double d, double t) {
  const int waves = static_cast<int>(std::floor(t / d)) + 1;
  return (n + waves - 1) / waves;
}

TEST_F(Planner, FindsTheHandComputedMinimumThroughTheSimulator) {
  const std::string path = write("waves.yaml", wave_scenario(20, 1, R"(plan:
  targets:
    queue_delay_max_s: {max: 20m}
    failed: {max: 0}
  scale: {node_group: gpu, min: 1, max: 40}
)"));
  const Scenario sc = load_scenario(path);
  const PlanSpec spec = read_plan_spec(path, sc);
  const CapacityPlan plan = plan_capacity(sc, spec, 2);
  const int expected = hand_minimum_gpus(20, 600, 1200);
  ASSERT_EQ(expected, 7);
  for (const int probes : {1, 3}) {  // one size per round, and three in parallel
    PlanSpec s = spec;
    s.probes = probes;
    const CapacityPlan p = plan_capacity(sc, s, 3);
    for (const auto& pp : p.policies) {
      ASSERT_TRUE(pp.chosen) << probes;
      EXPECT_EQ(pp.chosen->group_nodes, expected) << probes;
    }
  }
  ASSERT_EQ(plan.policies.size(), 2U);
  for (const auto& p : plan.policies) {
    SCOPED_TRACE(p.policy);
    ASSERT_TRUE(p.chosen);
    EXPECT_EQ(p.chosen->group_nodes, expected);
    EXPECT_EQ(p.chosen->gpus, static_cast<size_t>(expected));
    EXPECT_EQ(p.chosen->nodes, static_cast<size_t>(expected) + 1);  // + the CPU node
    EXPECT_NEAR(p.chosen->cost_per_hour, expected * 3.67, 1e-9);
    EXPECT_EQ(p.chosen->value, 1200.0);
    // Every size on the curve agrees with the formula.
    for (const auto& c : p.curve) {
      const double waves = std::ceil(20.0 / static_cast<double>(c.gpus));
      EXPECT_EQ(c.value, (waves - 1) * 600) << c.gpus;
      EXPECT_EQ(c.meets, static_cast<int>(c.gpus) >= expected) << c.gpus;
    }
    EXPECT_TRUE(p.fit);
  }
  EXPECT_NE(plan.recommendation.find("best-fit"), std::string::npos) << plan.recommendation;
}

TEST_F(Planner, GrowthAndNodeSizeChangeTheMinimumAsComputed) {
  // Growth 1.5 on an inline list replicates: 20 pods become 30. Two GPUs per node.
  const std::string path = write("waves.yaml", wave_scenario(20, 2, R"(plan:
  growth: 1.5
  targets: {queue_delay_max_s: {max: 600}}
  scale: {node_group: gpu, max: 64}
)"));
  const Scenario sc = load_scenario(path);
  const CapacityPlan plan = plan_capacity(sc, read_plan_spec(path, sc), 3);
  const int gpus = hand_minimum_gpus(30, 600, 600);  // 15
  for (const auto& p : plan.policies) {
    ASSERT_TRUE(p.chosen);
    EXPECT_EQ(p.chosen->group_nodes, (gpus + 1) / 2);  // 8 nodes of 2
    EXPECT_EQ(p.chosen->summaries.at(0).pods, 30U);
  }
}

// One-GPU pods sampled per seed onto one-GPU nodes with ample CPU: no pod waits iff the GPUs
// cover the peak number of pods running at once, which the sampled workload gives by hand (a
// sweep over arrivals and ends, ends first at a tie).
int peak_concurrency(const std::vector<PodSpec>& pods) {
  std::vector<std::pair<double, int>> events;
  for (const PodSpec& p : pods) {
    events.emplace_back(p.arrival_s, 1);
    events.emplace_back(p.arrival_s + p.duration_s, -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0, peak = 0;
  for (const auto& [t, d] : events) peak = std::max(peak, now += d);
  return peak;
}

const char* const kPeaks = R"(name: peaks
seeds: [1, 2, 3, 4, 5, 6]
cluster:
  node_groups:
    - {name: gpu, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 64000, memory_mib: 256Gi}
workload:
  generator:
    horizon: 4h
    arrivals_per_hour: 6
    shapes:
      - {name: job, gpu_count: 1, cpu_milli: 1000, memory_mib: 1Gi, duration: {distribution: exponential, mean: 1h, min: 1m}}
policies:
  - {name: best-fit, placement: best-fit}
plan:
  targets: {queue_delay_max_s: {max: 0}}
  scale: {node_group: gpu, min: 1, max: 40}
)";

// Seeds whose workloads need different sizes: each seed's own size is its peak, the plan's is
// the largest of them (the smallest size that meets the target in every seed), the one below
// it fails in some seed, and the range and seeds are reported.
TEST_F(Planner, SizesOverSeedsMeetTheTargetsInEverySeed) {
  const std::string path = write("peaks.yaml", kPeaks);
  const Scenario first = load_scenario(path);
  ASSERT_EQ(first.seeds, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
  std::vector<Scenario> seeds;
  std::vector<int> peaks;
  for (const uint64_t s : first.seeds) {
    seeds.push_back(load_scenario(path, s));
    peaks.push_back(peak_concurrency(seeds.back().pods));
  }
  const int lo = *std::min_element(peaks.begin(), peaks.end());
  const int hi = *std::max_element(peaks.begin(), peaks.end());
  ASSERT_LT(lo, hi) << "the seeds must disagree for this test to mean anything";
  const PlanSpec spec = read_plan_spec(path, first);
  const CapacityPlan plan = plan_capacity(seeds, spec, 2);
  EXPECT_EQ(plan.seeds, first.seeds);
  ASSERT_EQ(plan.policies.size(), 1U);
  const PolicyPlan& p = plan.policies[0];
  ASSERT_EQ(p.seed_sizes.size(), 6U);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(p.seed_sizes[i].seed, first.seeds[i]);
    EXPECT_EQ(p.seed_sizes[i].group_nodes, peaks[i]) << "seed " << first.seeds[i];
    // The seed planned alone finds the same size.
    const CapacityPlan alone = plan_capacity(seeds[i], spec, 2);
    ASSERT_TRUE(alone.policies[0].chosen);
    EXPECT_EQ(alone.policies[0].chosen->group_nodes, peaks[i]);
    EXPECT_EQ(alone.seeds, std::vector<uint64_t>{first.seeds[i]});
  }
  ASSERT_TRUE(p.chosen);
  EXPECT_EQ(p.chosen->group_nodes, hi);
  EXPECT_EQ(p.seed_size_range(), std::make_pair(lo, hi));
  ASSERT_EQ(p.chosen->meets_in.size(), 6U);
  for (const bool m : p.chosen->meets_in) EXPECT_TRUE(m);
  EXPECT_EQ(p.chosen->value, 0.0);
  EXPECT_EQ(p.walked_up, 0);
  // The size below fails in the seeds that need more, and meets in the others.
  const auto below = std::find_if(p.curve.begin(), p.curve.end(),
                                  [&](const PlanPoint& c) { return c.group_nodes == hi - 1; });
  ASSERT_NE(below, p.curve.end());
  EXPECT_FALSE(below->meets);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(below->meets_in[i], peaks[i] <= hi - 1) << i;
  // Every curve point ran in every seed.
  for (const PlanPoint& c : p.curve) EXPECT_EQ(c.summaries.size(), 6U);
  EXPECT_NE(plan.recommendation.find("every one of 6 seeds (1-6)"), std::string::npos)
      << plan.recommendation;
  EXPECT_NE(plan.recommendation.find(fmt::format("with {} nodes", hi)), std::string::npos)
      << plan.recommendation;
  EXPECT_NE(plan.recommendation.find(fmt::format("each seed alone needs {}-{}", lo, hi)),
            std::string::npos)
      << plan.recommendation;
}

TEST_F(Planner, InfeasibleWithinTheBoundsSaysSo) {
  const std::string path = write("waves.yaml", wave_scenario(20, 1, R"(plan:
  targets: {queue_delay_max_s: {max: 0}}
  scale: {node_group: gpu, max: 10}
)"));
  const Scenario sc = load_scenario(path);
  const CapacityPlan plan = plan_capacity(sc, read_plan_spec(path, sc), 2);
  for (const auto& p : plan.policies) EXPECT_FALSE(p.chosen);
  EXPECT_NE(plan.recommendation.find("No policy meets"), std::string::npos);
}

TEST_F(Planner, CliTargetsOverrideTheScenario) {
  const std::string path = write("waves.yaml", wave_scenario(4, 1, R"(plan:
  targets: {queue_delay_max_s: {max: 20m}, slo_attainment: {min: 0.5}}
)"));
  const Scenario sc = load_scenario(path);
  PlanSpec spec = read_plan_spec(path, sc);
  ASSERT_EQ(spec.targets.size(), 2U);
  EXPECT_EQ(spec.targets[0].bound, 1200.0);
  EXPECT_EQ(spec.node_group, "gpu");  // the first group with GPUs
  EXPECT_EQ(spec.max_nodes, 16);
  set_target(spec, parse_target("queue_delay_max_s<=60"));
  set_target(spec, parse_target("failed<=0"));
  ASSERT_EQ(spec.targets.size(), 3U);
  EXPECT_EQ(spec.targets[0].bound, 60.0);
  EXPECT_TRUE(spec.targets[0].at_most);
  EXPECT_FALSE(spec.targets[1].at_most);
  EXPECT_EQ(spec.targets[2].metric, "failed");
}

TEST_F(Planner, BadPlanBlocksAndTargetsAreLocatedErrors) {
  auto plan_error = [&](const std::string& plan) {
    const std::string path = write("bad.yaml", wave_scenario(2, 1, plan));
    return message_of([&] {
      const Scenario sc = load_scenario(path);
      check_plan_spec(read_plan_spec(path, sc), sc);
    });
  };
  EXPECT_NE(plan_error("plan:\n  targets: {queue_delay_p98_s: {max: 1}}\n")
                .find("unknown metric 'queue_delay_p98_s'"),
            std::string::npos);
  EXPECT_NE(plan_error("plan:\n  targets: {failed: {max: 0, min: 0}}\n")
                .find("needs exactly one of 'max' or 'min'"),
            std::string::npos);
  EXPECT_NE(plan_error("plan:\n  targets: {failed: {max: 0}}\n  scale: {node_group: h100}\n")
                .find("no node group named 'h100' (the cluster has: cpu, gpu)"),
            std::string::npos);
  EXPECT_NE(plan_error("plan:\n  targets: {failed: {max: 0}}\n  scale: {node_group: cpu}\n")
                .find("has no GPUs"),
            std::string::npos);
  EXPECT_NE(plan_error("plan:\n  targets: {failed: {max: 0}}\n  scale: {min: 5, max: 2}\n")
                .find("max (2) is below min (5)"),
            std::string::npos);
  EXPECT_NE(plan_error("plan:\n  growht: 2\n").find("did you mean 'growth'"), std::string::npos);
  EXPECT_NE(plan_error("plan:\n  growth: 2\n").find("no targets"), std::string::npos);
  EXPECT_NE(plan_error("plan:\n  targets: {failed: {max: 0}}\n").find("no error"),
            std::string::npos);
  EXPECT_NE(plan_error("plan:\n  targets: {failed: {max: 0}}\n  growth: -1\n").find("bad.yaml:"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_target("failed=0"); }).find("expected METRIC<=VALUE"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_target("failed<=zero"); }).find("is not a number"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_target("fails<=0"); }).find("unknown metric 'fails'"),
            std::string::npos);
}

// A plan's grown workload and its largest size are held to the limits of a scenario
// (docs/scenario-format.md, "Limits"); the default largest size stays within them.
TEST_F(Planner, GrowthAndSizesBeyondTheLimitsAreRefused) {
  const std::string path =
      write("limits.yaml", wave_scenario(6000, 8, "plan:\n  targets: {failed: {max: 0}}\n"));
  const Scenario sc = load_scenario(path);
  PlanSpec spec = read_plan_spec(path, sc);
  EXPECT_EQ(spec.max_nodes, 16);
  EXPECT_EQ(message_of([&] { check_plan_spec(spec, sc); }), "no error");
  spec.growth = 1000;  // 6,000,000 pods
  EXPECT_EQ(message_of([&] { check_plan_spec(spec, sc); }),
            path +
                ": growth 1000x makes a workload of 6000000 pods, more than the limit of "
                "5000000");
  spec.growth = 1;
  spec.max_nodes = 500'001;  // 4,000,008 GPUs
  EXPECT_EQ(message_of([&] { check_plan_spec(spec, sc); }),
            path +
                ": 500001 nodes in node group 'gpu' make a cluster beyond the limits of "
                "1000000 nodes and 4000000 GPUs (at most 500000 fit)");
}

TEST_F(Planner, WorkloadScalingReplicatesTracesAndRegeneratesGenerators) {
  const std::string path = write("waves.yaml", wave_scenario(10, 1, ""));
  Scenario sc = load_scenario(path);
  scale_workload(sc, 2.5);
  ASSERT_EQ(sc.pods.size(), 25U);
  EXPECT_EQ(sc.pods[0].name, "p0");
  EXPECT_EQ(sc.pods[1].name, "p0~2");
  std::set<std::string> names;
  for (const auto& p : sc.pods) names.insert(p.name.str());
  EXPECT_EQ(names.size(), 25U);

  const std::string gen = write("gen.yaml", R"(cluster:
  node_groups: [{name: g, count: 2, gpu_model: T4, gpus_per_node: 2, cpu_milli: 8000, memory_mib: 32Gi}]
workload:
  generator:
    horizon: 10h
    arrivals_per_hour: 20
    shapes: [{name: s, gpu_count: 1, duration: 10m}]
policies: [{placement: best-fit}]
)");
  Scenario g = load_scenario(gen);
  const size_t before = g.pods.size();
  scale_workload(g, 2.0);
  ASSERT_TRUE(g.generator);
  EXPECT_DOUBLE_EQ(g.generator->arrivals_per_hour, 40.0);
  // Poisson counts over 10 h: about 200 and 400; the regenerated workload is twice as dense.
  EXPECT_GT(static_cast<double>(g.pods.size()), 1.6 * static_cast<double>(before));
  EXPECT_LT(static_cast<double>(g.pods.size()), 2.4 * static_cast<double>(before));
  for (size_t i = 1; i < g.pods.size(); ++i)
    EXPECT_LE(g.pods[i - 1].arrival_s, g.pods[i].arrival_s);

  ClusterSpec c = g.cluster;
  scale_cluster(c, 0.25);
  EXPECT_EQ(c.groups[0].count, 1);  // at least one node
  scale_cluster(c, 3);
  EXPECT_EQ(c.groups[0].count, 3);
  EXPECT_THROW(scale_workload(g, 0), InputError);
}

// Growth scales the workload's own pods only: the jobs' pods follow them unchanged (their table
// re-indexed), and each service gets the grown rate and replica bounds, its pool re-expanded
// after them.
TEST_F(Planner, WorkloadScalingKeepsJobsAndScalesServices) {
  const std::string path = write("mixed.yaml", R"(cluster:
  node_groups: [{name: g, count: 2, gpu_model: A100-80GB, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 256Gi}]
engine: {until: 1h}
workload:
  pods:
    - {name: a, arrival: 0, duration: 60, gpu_count: 1}
    - {name: b, arrival: 10, duration: 60, gpu_count: 1}
  jobs:
    - {name: j, arrival: 5, duration: 100, workers: 2, gpu_count: 1}
  services:
    - {name: chat, gpu_count: 1, autoscale: {min: 1, max: 3, target: 2}, rate: 10,
       service_time: {mean: 50ms}}
    - {name: ocr, gpu_count: 1, replicas: 2, rate: {mean: 4, amplitude: 0.5},
       service_time: {mean: 50ms}}
policies: [{placement: best-fit}]
)");
  Scenario sc = load_scenario(path);
  ASSERT_EQ(sc.workload_pods(), 4U);  // a, b, j-0, j-1
  scale_workload(sc, 2.0);
  ASSERT_EQ(sc.workload_pods(), 6U);  // a, a~2, b, b~2, j-0, j-1
  EXPECT_EQ(sc.pods[4].name, "j-0");
  ASSERT_EQ(sc.jobs.size(), 1U);
  EXPECT_EQ(sc.jobs[0].first_pod, 4U);
  EXPECT_EQ(sc.jobs.job_of(5), 0U);
  EXPECT_EQ(sc.jobs.job_of(3), JobTable::kNoJob);
  ASSERT_EQ(sc.services.size(), 2U);
  EXPECT_DOUBLE_EQ(sc.services[0].rate.rate, 20.0);
  EXPECT_EQ(sc.services[0].autoscale->min_replicas, 2);
  EXPECT_EQ(sc.services[0].autoscale->max_replicas, 6);
  EXPECT_DOUBLE_EQ(sc.services[1].rate.rate, 8.0);
  EXPECT_DOUBLE_EQ(sc.services[1].rate.amplitude, 0.5);
  EXPECT_EQ(sc.services[1].replicas, 4);
  EXPECT_EQ(sc.services.first_pod(0), 6U);
  EXPECT_EQ(sc.services.pool_size(0), 6U);
  EXPECT_EQ(sc.services.first_pod(1), 12U);
  EXPECT_EQ(sc.pods.size(), 16U);
  EXPECT_EQ(sc.pods[12].name, "ocr-0");
}

// The first 4 of 20 pods are inference pods: with G >= 4 GPUs the FIFO queue starts them all at
// once (no queueing), while the whole run's p99 needs 20 GPUs for none.
TEST_F(Planner, AClassNamedTargetSizesForThatClassOnly) {
  std::string text = wave_scenario(20, 1, R"(plan:
  targets:
    queue_delay_p99_s[inference]: {max: 0}
  scale: {node_group: gpu, min: 1, max: 40}
)");
  for (int i = 0; i < 20; ++i) {
    const std::string name = fmt::format("{{name: p{}, ", i);
    text.replace(text.find(name), name.size(),
                 name + (i < 4 ? "class: inference, " : "class: training, "));
  }
  const std::string path = write("classes.yaml", text);
  const Scenario sc = load_scenario(path);
  const PlanSpec spec = read_plan_spec(path, sc);
  ASSERT_EQ(spec.targets.size(), 1U);
  EXPECT_EQ(spec.targets[0].metric, "queue_delay_p99_s[inference]");
  check_plan_spec(spec, sc);
  const CapacityPlan plan = plan_capacity(sc, spec, 2);
  for (const auto& p : plan.policies) {
    SCOPED_TRACE(p.policy);
    ASSERT_TRUE(p.chosen);
    EXPECT_EQ(p.chosen->group_nodes, 4);
    EXPECT_EQ(p.chosen->value, 0.0);
  }
  // A class without pods, and a metric without a per-class figure.
  PlanSpec batch = spec;
  set_target(batch, parse_target("completed[batch]>=1"));
  EXPECT_NE(message_of([&] { check_plan_spec(batch, sc); })
                .find("target 'completed[batch]': the workload has no pods of class 'batch' (its "
                      "classes: inference, training)"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_target("queue_delay_max_s[inference]<=1"); })
                .find("'queue_delay_max_s' has no per-class figure; a class-named target is one "
                      "of: queue_delay_p50_s, queue_delay_p99_s, jct_p50_s, jct_p99_s, "
                      "slo_attainment, completed, failed, unschedulable, pending_at_end"),
            std::string::npos);
}

TEST(PlanMetrics, NamesResolveAndUnknownNamesListTheKnown) {
  RunSummary s;
  s.failed = 3;
  s.queue_delay_s = {10, 1, 2, 3, 4, 5};
  EXPECT_EQ(metric_value(s, "failed"), 3.0);
  EXPECT_EQ(metric_value(s, "queue_delay_p99_s"), 4.0);
  EXPECT_FALSE(metric_value(s, "slo_attainment"));
  EXPECT_FALSE(metric_value(RunSummary{}, "jct_p99_s"));
  EXPECT_NE(message_of([&] { (void)metric_value(s, "nope"); }).find("queue_delay_p99_s"),
            std::string::npos);
  PlanTarget t{"slo_attainment", false, 0.99};
  EXPECT_FALSE(t.met_by(s));  // no SLO pods: a target on attainment is not met
  // A class's figure; none for a class without pods.
  ClassSummary c;
  c.workload_class = "inference";
  c.pods = 2;
  c.failed = 1;
  c.queue_delay_s = {1, 7, 7, 7, 7, 7};
  s.per_class.push_back(c);
  EXPECT_EQ(metric_value(s, "failed[inference]"), 1.0);
  EXPECT_EQ(metric_value(s, "queue_delay_p99_s[inference]"), 7.0);
  EXPECT_FALSE(metric_value(s, "failed[batch]"));
  EXPECT_TRUE(is_seconds_metric("queue_delay_p99_s[inference]"));
  EXPECT_FALSE(is_seconds_metric("failed[inference]"));
  EXPECT_FALSE(is_metric("failed[]"));
}

}  // namespace
}  // namespace slicelab
