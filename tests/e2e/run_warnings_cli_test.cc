// `slicelab compare` end to end on small scenarios: the identical-decision, inert-weight and
// idle-replay warnings under the table, in summary.json's decision.warnings and in report.md;
// and every policy's cost over the compare's common horizon.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using testing::read_file;
using testing::shell_quote;

// One node with two A100-80GB; two 10 s pods 10000 s apart: every policy puts each pod on the
// same GPU at its arrival, and the cluster is 20 GPU-s busy out of 2 x 10010 (0.10%).
const char* const kSparse = R"(name: sparse
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: a, arrival: 0, duration: 10s, gpu_count: 1, gpu_memory_mib: 1000}
    - {name: b, arrival: 10000s, duration: 10s, gpu_count: 1, gpu_memory_mib: 1000}
policies:
  - {name: best-fit, placement: best-fit}
  - {name: binpack, placement: binpack}
  - name: weighted-binpack
    placement:
      scorers: [{name: binpack, weight: 3}]
      device_picker: binpack
)";

// One A100-80GB; whole runs the four 30000 MiB pods one after another (0..400 s); time-slice-4
// starts them together, two fail and its own window ends sooner.
const char* const kShortWindow = R"(name: short-window
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: a, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: b, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: c, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: d, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
policies:
  - {name: time-slice-4, placement: first-fit, sharing: {mode: time-slice, replicas: 4}}
  - {name: whole, placement: first-fit}
)";

class RunWarningsCli : public testing::TempFilesTest {
 protected:
  int compare(const char* yaml, const std::string& extra = "") {
    const std::string file = write("s.yaml", yaml);
    const testing::CliRun r = testing::run_program(
        SLICELAB_BINARY,
        "compare " + shell_quote(file) + " --out " + shell_quote((dir_ / "r").string()) + extra,
        dir_, "slicelab");
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  nlohmann::json summary() { return nlohmann::json::parse(read_file(dir_ / "r" / "summary.json")); }
  std::string out_, err_;
};

TEST_F(RunWarningsCli, CompareWarnsUnderTheTableInSummaryAndReport) {
  ASSERT_EQ(compare(kSparse, " --report --seeds 1"), 0) << err_;
  const std::string expected[] = {
      "best-fit, binpack and weighted-binpack made identical placement decisions for all 2 pods",
      "weighted-binpack: the weight of binpack (3) cannot change a decision: it is the only "
      "scorer",
      "the cluster is nearly idle (0.10% allocated over 3 hours): the trace is sparse for 2 GPUs; "
      "for openb traces use `fill:` (docs/fragmentation.md)"};
  const nlohmann::json warnings = summary()["decision"]["warnings"];
  ASSERT_EQ(warnings.size(), 3U) << warnings;
  const std::string md = read_file(dir_ / "r" / "report.md");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NE(out_.find("warning: " + expected[i] + "\n"), std::string::npos) << out_;
    EXPECT_EQ(warnings[i], expected[i]);
    EXPECT_NE(md.find(expected[i]), std::string::npos) << expected[i];
  }
  // Over the default ten seeds: identical decisions are said only when they hold in every seed.
  ASSERT_EQ(compare(kSparse, " --force"), 0) << err_;
  EXPECT_NE(out_.find("warning: " + expected[0] + " (in every one of 10 seeds)\n"),
            std::string::npos)
      << out_;
  EXPECT_EQ(summary()["decision"]["warnings"][0], expected[0] + " (in every one of 10 seeds)");
}

TEST_F(RunWarningsCli, EveryPolicyPaysForTheSameHorizon) {
  ASSERT_EQ(compare(kShortWindow, " --seeds 1"), 0) << err_;  // windows are per run
  const nlohmann::json s = summary();
  ASSERT_EQ(s["policies"].size(), 2U);
  const nlohmann::json& ts = s["policies"][0];
  const nlohmann::json& whole = s["policies"][1];
  // Its own window ends before whole's 400 s ...
  EXPECT_LT(ts["window_s"]["end"].get<double>(), 400.0);
  EXPECT_DOUBLE_EQ(whole["window_s"]["end"].get<double>(), 400.0);
  // ... but both pay for the one GPU over [0, 400 s] at $3.67/h.
  for (const nlohmann::json* p : {&ts, &whole}) {
    EXPECT_DOUBLE_EQ((*p)["cost_window_s"]["start"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ((*p)["cost_window_s"]["end"].get<double>(), 400.0);
    EXPECT_NEAR((*p)["gpu_hours"]["provisioned"].get<double>(), 400.0 / 3600.0, 1e-6);
    EXPECT_NEAR((*p)["cost_usd"].get<double>(), 400.0 / 3600.0 * 3.67, 1e-6);
  }
  // Per completed pod: time-slice-4 completed 2, whole 4.
  EXPECT_NEAR(ts["cost_per_completed_usd"].get<double>(), 400.0 / 3600.0 * 3.67 / 2, 1e-6);
}

}  // namespace
}  // namespace slicelab
