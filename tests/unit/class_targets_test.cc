// Class-named decide: targets (`queue_p99[inference] <= 60`, sim/metrics/decide_spec.h): their
// texts and errors, the recommendation they change (reports/policy_choice.h), and the terminal's
// per-class table (reports/per_class_table.h), on hand-made run summaries.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/per_class_table.h"
#include "reports/policy_choice.h"
#include "sim/metrics/decide_spec.h"

namespace slicelab {
namespace {

ClassSummary klass(const std::string& name, size_t pods, size_t completed, double queue_p99,
                   double gpu_hours) {
  ClassSummary c;
  c.workload_class = name;
  c.pods = pods;
  c.completed = completed;
  c.queue_delay_s = {completed, queue_p99, queue_p99, queue_p99, queue_p99, queue_p99};
  c.gpu_hours_allocated = gpu_hours;
  return c;
}

// packed completes more pods overall (10 to 9) but queues its inference pods 300 s at p99;
// spread queues them 20 s.
std::vector<RunResult> class_runs() {
  RunResult packed, spread;
  packed.policy = "packed";
  packed.summary.pods = 10;
  packed.summary.completed = 10;
  packed.summary.per_class = {klass("inference", 6, 6, 300, 1.5), klass("training", 4, 4, 0, 8)};
  spread.policy = "spread";
  spread.summary.pods = 10;
  spread.summary.completed = 9;
  spread.summary.unschedulable = 1;
  spread.summary.per_class = {klass("inference", 6, 6, 20, 1.5), klass("training", 4, 3, 0, 6)};
  spread.summary.per_class[1].unschedulable = 1;
  return {packed, spread};
}

DecideSpec spec(const std::vector<std::string>& goals, const std::vector<std::string>& limits) {
  DecideSpec d;
  d.stated = true;
  std::string why;
  for (const std::string& g : goals) d.objective.push_back(*parse_decide_goal(g, why));
  for (const std::string& k : limits) d.constraints.push_back(*parse_decide_constraint(k, why));
  return d;
}

TEST(ClassTargets, APerClassConstraintChangesTheRecommendation) {
  const auto runs = class_runs();
  const PolicyChoice overall = choose_policy(spec({"max completed"}, {}), runs);
  ASSERT_TRUE(overall.chosen);
  EXPECT_EQ(runs[*overall.chosen].policy, "packed");
  const PolicyChoice c =
      choose_policy(spec({"max completed"}, {"queue_p99[inference] <= 60"}), runs);
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(runs[*c.chosen].policy, "spread");
  ASSERT_EQ(c.broken[0].size(), 1U);
  EXPECT_EQ(c.broken[0][0], "queue_p99[inference] <= 60");
  EXPECT_EQ(c.basis,
            "Decided by max completed; constraints queue_p99[inference] <= 60; one seed: noise "
            "unknown, so every difference decides (--seeds N replicates)");
}

TEST(ClassTargets, APerClassGoalOrdersByTheClassFigure) {
  const auto runs = class_runs();
  // The training pods of spread held fewer GPU-hours.
  const PolicyChoice c = choose_policy(spec({"min gpu_hours.allocated[training]"}, {}), runs);
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(runs[*c.chosen].policy, "spread");
  EXPECT_NE(c.text.find("Recommended: spread (gpu hours allocated[training] 6"), std::string::npos)
      << c.text;
}

TEST(ClassTargets, AClassWithoutPodsHasNoValueAndNeverMeetsAConstraint) {
  const auto runs = class_runs();
  std::string why;
  const auto k = parse_decide_constraint("completed[batch] >= 0", why);
  ASSERT_TRUE(k) << why;
  EXPECT_FALSE(k->value(runs[0].summary));
  EXPECT_FALSE(k->met_by(k->value(runs[0].summary)));
  const auto whole = parse_decide_constraint("completed >= 10", why);
  ASSERT_TRUE(whole) << why;
  EXPECT_EQ(whole->value(runs[0].summary), 10);
  EXPECT_EQ(whole->text(), "completed >= 10");
}

TEST(ClassTargets, TextsAndErrors) {
  std::string why;
  const auto g = parse_decide_goal("max completed[training]", why);
  ASSERT_TRUE(g) << why;
  EXPECT_EQ(g->name, "completed");
  EXPECT_EQ(g->workload_class, "training");
  EXPECT_EQ(g->text(), "max completed[training]");
  const auto k = parse_decide_constraint("queue_p99[inference]<=60", why);
  ASSERT_TRUE(k) << why;
  EXPECT_EQ(k->text(), "queue_p99[inference] <= 60");
  EXPECT_EQ(k->metric_text(), "queue_p99[inference]");

  EXPECT_FALSE(parse_decide_goal("min cost[inference]", why));
  EXPECT_EQ(why,
            "'cost' has no per-class figure; a class-named metric is one of: completed, failed, "
            "unschedulable, pending_at_end, unplaced, queue_p50, queue_p99, jct_p50, jct_p99, "
            "slo, pods.total, gpu_hours.allocated (a service's: latency_p50, latency_p95, "
            "latency_p99, within_slo, requests_lost, slo_met)");
  EXPECT_FALSE(parse_decide_constraint("queue_p99[inference <= 60", why));
  EXPECT_EQ(why, "expected 'METRIC[CLASS]', found 'queue_p99[inference'");
  EXPECT_FALSE(parse_decide_constraint("queue_p99[] <= 60", why));
  EXPECT_EQ(why, "expected 'METRIC[CLASS]', found 'queue_p99[]'");
  EXPECT_FALSE(parse_decide_goal("max speed[inference]", why));
  EXPECT_NE(why.find("unknown metric 'speed'"), std::string::npos) << why;

  const std::vector<std::string> classes = {"inference", "training"};
  EXPECT_EQ(unknown_class_error("", classes), "");
  EXPECT_EQ(unknown_class_error("training", classes), "");
  EXPECT_EQ(unknown_class_error("batch", classes),
            "the workload has no pods of class 'batch' (its classes: inference, training)");
  EXPECT_NE(unknown_class_error("batch", {}).find("it names no classes"), std::string::npos);
}

TEST(ClassTargets, TerminalTableHasARowPerPolicyAndClass) {
  const auto runs = class_runs();
  EXPECT_EQ(per_class_table(runs),
            "\nper workload class:\n"
            "policy  class      done  failed  unplaced  queue p99  JCT p99  SLO  GPU-h\n"
            "------  ---------  ----  ------  --------  ---------  -------  ---  -----\n"
            "packed  inference     6       0         0       5.0m        -    -    1.5\n"
            "packed  training      4       0         0         0s        -    -    8.0\n"
            "spread  inference     6       0         0        20s        -    -    1.5\n"
            "spread  training      3       0         1         0s        -    -    6.0\n");
  std::vector<RunResult> plain(1);
  plain[0].policy = "whole";
  EXPECT_EQ(per_class_table(plain), "");
}

}  // namespace
}  // namespace slicelab
