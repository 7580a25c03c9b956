// The recommendation of a compare (reports/policy_choice.h) on hand-made run summaries, the
// decide: texts it is given, and the per-completed-pod figures of the run-metrics table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/policy_choice.h"
#include "sim/metrics/decide_spec.h"
#include "sim/metrics/run_metrics.h"
#include "sim/metrics/seed_mean.h"

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
  EXPECT_EQ(c.basis,
            "Decided by min cost; constraints failed <= 0; one seed: noise unknown, so every "
            "difference decides (--seeds N replicates)");
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
            "cost_per_completed; one seed: noise unknown, so every difference decides (--seeds N "
            "replicates)");
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

// Ten seeds of three policies, each seed's figures as given; the means by the seed-mean rules.
struct SeedTable {
  std::vector<std::vector<RunResult>> seeds;  // [seed][policy]
  std::vector<RunResult> means;
  std::vector<SeedSummaries> per_seed;  // [policy][seed]
};

SeedTable seed_table(const std::vector<std::string>& names,
                     const std::vector<std::vector<double>>& queue_p99,
                     const std::vector<std::vector<double>>& cost,
                     const std::vector<std::vector<size_t>>& failed) {
  SeedTable t;
  const size_t n = queue_p99.front().size();
  t.seeds.resize(n);
  for (size_t s = 0; s < n; ++s)
    for (size_t p = 0; p < names.size(); ++p)
      t.seeds[s].push_back(
          choice_run(names[p], 10 - failed[p][s], failed[p][s], cost[p][s], queue_p99[p][s], 0.9));
  t.per_seed.resize(names.size());
  for (size_t p = 0; p < names.size(); ++p) {
    for (size_t s = 0; s < n; ++s) t.per_seed[p].push_back(&t.seeds[s][p].summary);
    RunResult m;
    m.policy = names[p];
    m.summary = seed_mean(t.per_seed[p]);
    t.means.push_back(std::move(m));
  }
  return t;
}

const std::vector<size_t> kNoFailures(10, 0);

TEST(PolicyChoiceOverSeeds, ADifferenceWithinNoiseFallsThroughToTheNextKey) {
  // Queue p99: a's mean (50.5) is lower than b's (51.5), but the paired differences swing from -9
  // to +9 around -1 (half width 3.9 > 1): a tie. Cost: b is 1 cheaper in every seed: beyond noise.
  const std::vector<double> qa = {50, 40, 60, 55, 45, 50, 52, 48, 58, 47};
  const std::vector<double> qb = {59, 31, 69, 46, 54, 41, 61, 39, 67, 48};
  const std::vector<double> ca(10, 30), cb(10, 29);
  const SeedTable t = seed_table({"a", "b"}, {qa, qb}, {ca, cb}, {kNoFailures, kNoFailures});
  const PolicyChoice c = choose_policy(default_decide_spec(), t.means, t.per_seed);
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(t.means[*c.chosen].policy, "b");
  EXPECT_EQ(c.seeds, 10U);
  EXPECT_EQ(c.decided_by, "cost_per_completed");
  EXPECT_EQ(c.tied_on, (std::vector<std::string>{"completed", "queue_p99"}));
  EXPECT_EQ(c.indistinguishable, (std::vector<size_t>{0, 1}));
  EXPECT_NE(c.text.find("a and b are indistinguishable on completed and queue p99 (10 seeds); "
                        "chosen by cost per completed:"),
            std::string::npos)
      << c.text;
  // With one seed (the first), the lower queue p99 would have decided: a.
  const std::vector<RunResult> first = {t.seeds[0][0], t.seeds[0][1]};
  EXPECT_EQ(first[*choose_policy(default_decide_spec(), first).chosen].policy, "a");
}

TEST(PolicyChoiceOverSeeds, ADifferenceBeyondNoiseDecides) {
  // a's queue p99 is 5 below b's in every seed but one (3): beyond noise, so queue p99 decides
  // although b is cheaper.
  std::vector<double> qa = {50, 40, 60, 55, 45, 50, 52, 48, 58, 47}, qb = qa;
  for (size_t s = 0; s < qb.size(); ++s) qb[s] += s == 3 ? 3 : 5;
  const std::vector<double> ca(10, 30), cb(10, 29);
  const SeedTable t = seed_table({"a", "b"}, {qa, qb}, {ca, cb}, {kNoFailures, kNoFailures});
  const PolicyChoice c = choose_policy(default_decide_spec(), t.means, t.per_seed);
  ASSERT_TRUE(c.chosen && c.runner_up);
  EXPECT_EQ(t.means[*c.chosen].policy, "a");
  EXPECT_EQ(t.means[*c.runner_up].policy, "b");
  EXPECT_EQ(c.decided_by, "queue_p99");
  EXPECT_EQ(c.tied_on, std::vector<std::string>{"completed"});
  EXPECT_TRUE(c.indistinguishable.size() == 2);  // tied on completed before queue p99 decided
}

TEST(PolicyChoiceOverSeeds, NothingSeparatesTheLeadersSaysSoAndHowManySeedsWouldDo) {
  const std::vector<double> qa = {50, 40, 60, 55, 45, 50, 52, 48, 58, 47};
  const std::vector<double> qb = {59, 31, 69, 46, 54, 41, 61, 39, 67, 48};
  const std::vector<double> c10(10, 30);
  const SeedTable t = seed_table({"a", "b"}, {qa, qb}, {c10, c10}, {kNoFailures, kNoFailures});
  const PolicyChoice c = choose_policy(default_decide_spec(), t.means, t.per_seed);
  ASSERT_TRUE(c.chosen);
  EXPECT_FALSE(c.decided_by);
  EXPECT_EQ(t.means[*c.chosen].policy, "a");  // the better means
  ASSERT_TRUE(c.seeds_to_separate);
  EXPECT_GT(*c.seeds_to_separate, 10U);
  EXPECT_NE(c.text.find("Nothing separates a and b on completed, queue p99 and cost per "
                        "completed (10 seeds)"),
            std::string::npos)
      << c.text;
  EXPECT_EQ(c.json(t.means)["decided_by"], nullptr);
}

TEST(PolicyChoiceOverSeeds, AConstraintMetInNineOfTenSeedsIsBroken) {
  const std::vector<double> q(10, 50), cost_a(10, 20), cost_b(10, 30);
  std::vector<size_t> fa(10, 0);
  fa[6] = 1;  // a loses a pod in one seed of ten
  const SeedTable t = seed_table({"a", "b"}, {q, q}, {cost_a, cost_b}, {fa, kNoFailures});
  const PolicyChoice c = choose_policy(spec_of({"min cost"}, {"failed <= 0"}), t.means, t.per_seed);
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(t.means[*c.chosen].policy, "b");
  EXPECT_EQ(c.broken[0], std::vector<std::string>{"failed <= 0 (met in 9 of 10 seeds)"});
  EXPECT_NE(c.text.find("It is the only policy that meets failed <= 0 in every seed."),
            std::string::npos)
      << c.text;
  EXPECT_EQ(c.json(t.means)["breaks_constraints"]["a"][0], "failed <= 0 (met in 9 of 10 seeds)");
}

}  // namespace
}  // namespace slicelab
