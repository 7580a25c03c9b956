// Pins down `slicelab explain` end to end (docs/explain.md): the binary's text and JSON on a
// hand-worked best-fit placement, --top and --nodes, and its errors (an unknown pod with "did
// you mean", an unknown policy, a missing option).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace explain_cli_test {

using testing::shell_quote;

// tests/unit/explain_test.cc works its scores by hand: c goes to n-1 (binpack 81 → 100).
constexpr const char* kScenario = R"(name: explain-cli
cluster:
  node_groups:
    - {name: n, count: 3, gpu_model: A100-80GB, gpus_per_node: 4, cpu_milli: 32000, memory_mib: 128Gi}
workload:
  pods:
    - {name: a, arrival: 0, duration: 1h, gpu_count: 2, cpu_milli: 8000, memory_mib: 1Gi}
    - {name: b, arrival: 1s, duration: 1h, gpu_count: 3, cpu_milli: 16000, memory_mib: 1Gi}
    - {name: c, arrival: 2s, duration: 1h, gpu_count: 1, cpu_milli: 4000, memory_mib: 1Gi}
policies:
  - {name: best-fit, placement: {preset: best-fit, tie_break: first}}
  - {name: spread, placement: spread}
)";

class ExplainCli : public testing::TempFilesTest {
 protected:
  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(SLICELAB_BINARY, args, dir_, "run-" + std::to_string(calls_++));
  }
  std::string scenario() { return shell_quote(write("s.yaml", kScenario)); }
  int calls_ = 0;
};

TEST_F(ExplainCli, TextShowsVerdictsScoresTieBreakAndGpus) {
  const auto r = slicelab("explain " + scenario() + " --policy best-fit --pod c");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* line : {"pod c under policy best-fit: completed, started at t=2s",
                           "attempt 1 at t=2s: placed on n-1", "filters per node:",
                           "filters: fits: 3 nodes", "scores (top 3 of 3 candidates):",
                           "tie-break: 1 node at the top total 100; rule first (lowest node index)",
                           "chosen: n-1", "device picker binpack: GPU 3 on n-1, whole GPU each"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  // n-1's row: raw 81, normalised 100, total 100.
  EXPECT_NE(r.out.find("81/100"), std::string::npos) << r.out;
}

TEST_F(ExplainCli, JsonIsOneDocument) {
  const auto r = slicelab("explain " + scenario() +
                          " --policy best-fit --pod c --top 2 "
                          "--nodes 1 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["format"], "slicelab.explain/1");
  EXPECT_EQ(j["attempts"][0]["node"], "n-1");
  EXPECT_EQ(j["attempts"][0]["passes"][0]["top"].size(), 2U);
  EXPECT_FALSE(j["attempts"][0]["passes"][0].contains("node_verdicts"));  // 3 nodes > --nodes 1
  EXPECT_EQ(j["attempts"][0]["chosen"]["gpus"], nlohmann::json::array({3}));
}

TEST_F(ExplainCli, UnknownPodIsBadInputWithDidYouMean) {
  const auto r = slicelab("explain " + scenario() + " --policy best-fit --pod cc");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: explain-cli: no pod named 'cc' among its 3 pods (did you mean 'c'?)\n");
}

TEST_F(ExplainCli, UnknownPolicyIsBadInputNamingThePolicies) {
  const auto r = slicelab("explain " + scenario() + " --policy fgd --pod c");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "error: explain-cli: no policy named 'fgd' (the scenario has: best-fit, spread)\n");
}

TEST_F(ExplainCli, PodAndPolicyAreRequired) {
  EXPECT_EQ(slicelab("explain " + scenario() + " --policy best-fit").status, 2);
  EXPECT_EQ(slicelab("explain " + scenario() + " --pod c").status, 2);
  EXPECT_EQ(slicelab("explain " + scenario() + " --policy best-fit --pod c --top 0").status, 2);
}

}  // namespace explain_cli_test
}  // namespace slicelab
