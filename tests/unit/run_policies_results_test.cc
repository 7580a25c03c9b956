// Parallel policy runs give the same written results (summary.json, pods.csv) as serial ones,
// and a policy run alone the same as among others (apart from the compare's cost horizon).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "reports/results_writer.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/policy_run_fixtures.h"

namespace slicelab {
namespace {

using testing::all_policies;
using testing::scenario_path;

TEST(RunPolicies, ThreadCountDoesNotChangeResults) {
  const Scenario sc = load_scenario(scenario_path("quickstart.yaml"));
  const auto which = all_policies(sc);
  std::atomic<int> progress_calls{0};
  const auto serial = run_policies(sc, which, 1);
  const auto parallel =
      run_policies(sc, which, 4, [&](size_t, double) { progress_calls.fetch_add(1); });
  const std::string a = summary_json(sc, serial).dump();
  const std::string b = summary_json(sc, parallel).dump();
  EXPECT_EQ(a, b);
  EXPECT_EQ(pods_csv(sc, serial), pods_csv(sc, parallel));
  ASSERT_EQ(parallel.size(), sc.policies.size());
  for (size_t i = 0; i < parallel.size(); ++i) EXPECT_EQ(parallel[i].policy, sc.policies[i].name);
  EXPECT_GE(progress_calls.load(), static_cast<int>(which.size()));  // at least the final 1.0
}

// Among others a policy's provisioned GPU-hours and cost count the compare's common horizon
// (common_horizon.h); alone, its own window. Every other figure is the same.
RunResult without_cost_horizon(RunResult r) {
  r.summary.cost_window_start_s = r.summary.cost_window_end_s = 0;
  r.summary.gpu_hours_provisioned = r.summary.cost_usd = 0;
  for (ModelUsage& u : r.summary.per_model) u.gpu_hours_provisioned = u.cost_usd = 0;
  return r;
}

TEST(RunPolicies, OnePolicyAloneEqualsItsRunAmongOthers) {
  const Scenario sc = load_scenario(scenario_path("quickstart.yaml"));
  const auto together = run_policies(sc, all_policies(sc), 3);
  for (size_t i = 0; i < sc.policies.size(); ++i) {
    const std::vector<size_t> one = {i};
    const auto alone = run_policies(sc, one, 1);
    const RunSummary& s = alone[0].summary;
    EXPECT_EQ(s.cost_window_end_s, s.window_end_s);  // alone: its own window
    const std::vector<RunResult> a = {without_cost_horizon(alone[0])};
    const std::vector<RunResult> t = {without_cost_horizon(together[i])};
    EXPECT_EQ(summary_json(sc, a).dump(), summary_json(sc, t).dump()) << sc.policies[i].name;
  }
}

}  // namespace
}  // namespace slicelab
