// The FGD paper's main experiment on the shipped openb data: FGD must allocate the most and
// fragment the least of the six policies, as the paper reports (a regression guard on FGD).
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"

namespace slicelab {
namespace {

TEST(OpenbFgdExperiment, FgdBeatsEveryBaselineAtFullArrival) {
  const Scenario sc =
      load_scenario(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/openb-fgd.yaml", 42);
  ASSERT_EQ(sc.policies.size(), 6U);
  EXPECT_GT(sc.pods.size(), 10000U);  // 1.3 x 6,212 GPUs of demand
  std::vector<size_t> all(sc.policies.size());
  std::iota(all.begin(), all.end(), size_t{0});
  const auto runs = run_policies(sc, all, 2);
  std::map<std::string, FillSummary> fill;
  for (const RunResult& r : runs) {
    ASSERT_TRUE(r.summary.fill.has_value()) << r.policy;
    fill[r.policy] = *r.summary.fill;
    EXPECT_NEAR(r.summary.fill->arrived_at_end, 1.3, 0.01) << r.policy;
  }
  for (const auto& [name, f] : fill) {
    if (name == "fgd") continue;
    EXPECT_GT(fill["fgd"].allocated_at_full, f.allocated_at_full) << "fgd vs " << name;
    EXPECT_LT(fill["fgd"].fragmented_at_full, f.fragmented_at_full) << "fgd vs " << name;
    EXPECT_LT(fill["fgd"].failed_at_end, f.failed_at_end) << "fgd vs " << name;
  }
  // The paper's weakest baselines stay behind best-fit.
  EXPECT_GT(fill["best-fit"].allocated_at_full, fill["random-fit"].allocated_at_full);
  EXPECT_GT(fill["best-fit"].allocated_at_full, fill["gpu-clustering"].allocated_at_full);
}

}  // namespace
}  // namespace slicelab
