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

// The paper's Fig. 9(a): unallocated GPU share (%) at 100% arrived workload, mean over its ten
// seeds 42-51 (kubernetes-scheduler-simulator, experiments/analysis/expected_results/
// analysis_allo_discrete.csv, openb_pod_list_default, tune 1.3, column 100).
const std::vector<std::pair<std::string, double>> kPaperUnallocated = {
    {"random-fit", 13.697}, {"dot-product", 9.378}, {"gpu-clustering", 8.350},
    {"gpu-packing", 8.221}, {"best-fit", 7.138},    {"fgd", 4.773}};

TEST(OpenbFgdExperiment, ReproducesThePaperWithinHalfAPoint) {
#ifdef SLICELAB_SANITIZED
  // Sanitized builds run ten times slower: three seeds, a wider band.
  const uint64_t seeds = 3;
  const double tolerance = 1.0;
#else
  const uint64_t seeds = 10;
  const double tolerance = 0.5;
#endif
  std::map<std::string, double> unallocated;
  for (uint64_t seed = 42; seed < 42 + seeds; ++seed) {
    const Scenario sc =
        load_scenario(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/openb-fgd.yaml", seed);
    std::vector<size_t> all(sc.policies.size());
    std::iota(all.begin(), all.end(), size_t{0});
    for (const RunResult& r : run_policies(sc, all, 2)) {
      ASSERT_TRUE(r.summary.fill.has_value()) << r.policy;
      unallocated[r.policy] +=
          100.0 * (1.0 - r.summary.fill->allocated_at_full) / static_cast<double>(seeds);
    }
  }
  double previous = 100.0, previous_paper = 100.0;
  for (const auto& [policy, paper] : kPaperUnallocated) {
    ASSERT_EQ(unallocated.count(policy), 1U) << policy;
    EXPECT_NEAR(unallocated[policy], paper, tolerance) << policy;
    // The paper's order: each policy leaves less unallocated than the one before it. With the
    // ten seeds for all six; with three, only where the paper's gap exceeds the band (packing
    // and clustering are 0.13 apart, within one seed's noise).
    if (seeds == 10 || previous_paper - paper > tolerance) {
      EXPECT_LT(unallocated[policy], previous) << policy;
    }
    previous = unallocated[policy];
    previous_paper = paper;
  }
}

}  // namespace
}  // namespace slicelab
