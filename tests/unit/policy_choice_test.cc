// The recommendation of a compare (reports/policy_choice.h) on hand-made run summaries, the
// decide: texts it is given, and the per-completed-pod figures of the run-metrics table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/policy_choice.h"
#include "sim/metrics/decide_spec.h"
#include "sim/metrics/run_metrics.h"

namespace slicelab {
namespace {

RunResult choice_run(const std::string& name, size_t completed, size_t neighbour_failed,
                     double cost, double queue_p99, double slo) {
  RunResult r;
  r.policy = name;
  RunSummary& s = r.summary;
  s.pods = 10;
  s.completed = completed;
  s.failed = neighbour_failed;
  s.neighbour_failures = neighbour_failed;
  s.cost_usd = cost;
  s.gpu_hours_allocated = 2 * cost;
  s.queue_delay_s.count = completed;
  s.queue_delay_s.p99 = queue_p99;
  s.slo_attainment = slo;
  return r;
}

// cheap: the lowest cost, but 4 of its 10 pods failed (neighbours). mid and dear complete all.
std::vector<RunResult> choice_runs() {
  return {choice_run("cheap", 6, 4, 10, 0, 0.95), choice_run("dear", 10, 0, 30, 50, 0.80),
          choice_run("mid", 10, 0, 25, 100, 0.85)};
}

DecideSpec spec_of(const std::vector<std::string>& goals,
                   const std::vector<std::string>& constraints) {
  DecideSpec d;
  d.stated = true;
  std::string why;
  for (const std::string& g : goals) {
    auto goal = parse_decide_goal(g, why);
    EXPECT_TRUE(goal) << why;
    if (goal) d.objective.push_back(*goal);
  }
  for (const std::string& c : constraints) {
    auto constraint = parse_decide_constraint(c, why);
    EXPECT_TRUE(constraint) << why;
    if (constraint) d.constraints.push_back(*constraint);
  }
  return d;
}

TEST(PolicyChoice, CheapestPolicyThatLostPodsIsNeverRecommendedUnderAConstraint) {
  const auto runs = choice_runs();
  const PolicyChoice free = choose_policy(spec_of({"min cost"}, {}), runs);
  ASSERT_TRUE(free.chosen);
  EXPECT_EQ(runs[*free.chosen].policy, "cheap");

  const PolicyChoice c = choose_policy(spec_of({"min cost"}, {"failed <= 0"}), runs);
  ASSERT_TRUE(c.chosen && c.runner_up);
  EXPECT_EQ(runs[*c.chosen].policy, "mid");  // 25 < 30
  EXPECT_EQ(runs[*c.runner_up].policy, "dear");
  EXPECT_EQ(c.broken[0], std::vector<std::string>{"failed <= 0"});
  EXPECT_EQ(c.text,
            "Recommended: mid (cost $25.00). Runner-up: dear, with a higher cost ($30.00 vs "
            "$25.00).");
  EXPECT_EQ(c.basis, "Decided by min cost; constraints failed <= 0");
  ASSERT_EQ(c.warnings.size(), 1U);
  EXPECT_EQ(c.warnings[0], "cheap lost 4 of 10 pods: 4 failed because of neighbours");
}

TEST(PolicyChoice, LaterGoalsBreakTiesAndTheRunnerUpSaysWhatItTrades) {
  const auto runs = choice_runs();
  const PolicyChoice c =
      choose_policy(spec_of({"max completed", "min queue_p99", "min cost"}, {}), runs);
  ASSERT_TRUE(c.chosen && c.runner_up);
  EXPECT_EQ(runs[*c.chosen].policy, "dear");  // 10 completed, queue p99 50 s < 100 s
  EXPECT_EQ(runs[*c.runner_up].policy, "mid");
  EXPECT_EQ(c.text,
            "Recommended: dear (completed 10, queue p99 50s, cost $30.00). Runner-up: mid, which "
            "trades a higher queue p99 (1.7m vs 50s) for a lower cost ($25.00 vs $30.00).");
}

TEST(PolicyChoice, TheDefaultPutsCompletedPodsFirst) {
  const auto runs = choice_runs();
  const PolicyChoice c = choose_policy(default_decide_spec(), runs);
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(runs[*c.chosen].policy, "dear");
  EXPECT_EQ(c.basis,
            "Decided (default objective) by max completed, then min queue_p99, then min "
            "cost_per_completed");
}

TEST(PolicyChoice, NoPolicyMeetsTheConstraintsNamesTheOneThatBinds) {
  const auto runs = choice_runs();
  // slo >= 0.9 is broken by dear and mid, failed <= 0 by cheap only: slo binds.
  const PolicyChoice c = choose_policy(spec_of({"min cost"}, {"failed <= 0", "slo >= 0.9"}), runs);
  EXPECT_FALSE(c.chosen);
  EXPECT_FALSE(c.runner_up);
  EXPECT_EQ(c.text,
            "No policy meets every constraint, so none is recommended: slo >= 0.9 binds (2 of 3 "
            "policies break it); the closest is cheap (slo = 95.0%, breaking failed <= 0).");
  EXPECT_EQ(c.json(runs)["recommended"], nullptr);
}

TEST(PolicyChoice, NoFailuresMeansNoWarningsAndNoCauses) {
  RunSummary s;
  s.pods = 5;
  s.completed = 5;
  EXPECT_EQ(lost_pods_warning("p", s), "");
  const std::vector<RunResult> runs = {choice_runs()[1], choice_runs()[2]};
  EXPECT_TRUE(choose_policy(default_decide_spec(), runs).warnings.empty());
  for (const char* key : {"pods.failed_own_memory", "pods.failed_faults", "neighbour_failures"}) {
    const RunMetric* m = find_run_metric(key);
    ASSERT_NE(m, nullptr) << key;
    EXPECT_EQ(metric_value(*m, s), 0.0) << key;
  }
}

TEST(PolicyChoice, LostPodsWarningSplitsEveryCause) {
  RunSummary s;
  s.pods = 20;
  s.failed = 6;
  s.failed_own_memory = 1;
  s.neighbour_failures = 2;
  s.failed_faults = 3;
  s.unschedulable = 4;
  s.pending_at_end = 1;
  EXPECT_EQ(lost_pods_warning("p", s),
            "p lost 11 of 20 pods: 1 failed out of their own memory, 2 failed because of "
            "neighbours, 3 failed by a fault, 5 never placed");
}

TEST(PerCompletedPod, CostAndGpuHoursAreDividedByCompletedPods) {
  const RunResult r = choice_runs()[0];  // cost 10, 20 GPU-h allocated, 6 completed
  const RunMetric* cost = find_run_metric("cost_per_completed_usd");
  const RunMetric* hours = find_run_metric("gpu_hours.per_completed");
  ASSERT_TRUE(cost && hours);
  EXPECT_DOUBLE_EQ(*metric_value(*cost, r.summary), 10.0 / 6.0);
  EXPECT_DOUBLE_EQ(*metric_value(*hours, r.summary), 20.0 / 6.0);
  RunSummary none;
  none.cost_usd = 3;
  EXPECT_FALSE(metric_value(*cost, none));  // no pod completed: no figure, not infinity
}

TEST(DecideSpecText, NamesAndMalformedTexts) {
  EXPECT_EQ(decide_metric("queue_p99"), find_run_metric("queue_delay_s.p99"));
  EXPECT_EQ(decide_metric("queue_delay_p99_s"), find_run_metric("queue_delay_s.p99"));
  EXPECT_EQ(decide_metric("slo.attainment"), find_run_metric("slo.attainment"));
  EXPECT_NE(decide_metric("unplaced"), nullptr);
  EXPECT_EQ(decide_metric("not_placed_reasons"), nullptr);  // a block, not one number
  std::string why;
  EXPECT_FALSE(parse_decide_goal("fastest queue_p99", why));
  EXPECT_EQ(why, "expected 'max METRIC' or 'min METRIC', found 'fastest queue_p99'");
  EXPECT_FALSE(parse_decide_constraint("failed <= many", why));
  EXPECT_EQ(why, "'many' is not a number (in 'failed <= many')");
  EXPECT_FALSE(parse_decide_constraint("speed >= 1", why));
  EXPECT_NE(why.find("unknown metric 'speed'"), std::string::npos) << why;
  const auto c = parse_decide_constraint("slo>0.5", why);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->text(), "slo > 0.5");
  EXPECT_FALSE(c->met_by(0.5));
  EXPECT_TRUE(c->met_by(0.51));
  EXPECT_FALSE(c->met_by(std::nullopt));
}

}  // namespace
}  // namespace slicelab
