// `slicelab compare` on a scenario with a decide: block, end to end: the recommendation at the
// top of the terminal output, report.md and summary.json, the lost-pods warning, the
// per-completed-pod figures, and decide: errors located in the file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::shell_quote;

// One A100-80GB (81920 MiB, $3.67/h). whole runs the four 30000 MiB pods one after another
// (0..400 s, every pod completes); time-slice-4 starts them together: two fail (neighbours hold
// the memory) and its run ends sooner; both pay for the GPU over the same 400 s (the common
// cost horizon), so per completed pod time-slice-4 costs twice as much.
const char* const kCheapLoses = R"(name: cheap-loses
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: a, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: b, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: c, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: d, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
engine:
  sample_interval: 1m
DECIDE
policies:
  - {name: time-slice-4, placement: first-fit, sharing: {mode: time-slice, replicas: 4}}
  - {name: whole, placement: first-fit}
)";

class DecideCli : public testing::TempFilesTest {
 protected:
  std::string scenario(const std::string& decide) {
    std::string text = kCheapLoses;
    text.replace(text.find("DECIDE"), 6, decide);
    return write("cheap.yaml", text);
  }
  int slicelab(const std::string& args) {
    const testing::CliRun r = testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab");
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  nlohmann::json summary(const std::string& out) {
    return nlohmann::json::parse(read_file(dir_ / out / "summary.json"));
  }
  std::string out_, err_;
};

TEST_F(DecideCli, CheapestPolicyLosingPodsIsNotRecommended) {
  const std::string file =
      scenario("decide:\n  objective: [min cost]\n  constraints: [\"failed <= 0\"]");
  ASSERT_EQ(slicelab("compare --seeds 1 " + shell_quote(file) + " --report --out " +
                     shell_quote((dir_ / "r").string())),
            0)
      << err_;
  EXPECT_EQ(out_.rfind("Recommended: whole (cost $0.4078). It is the only policy that meets "
                       "failed <= 0.\nDecided by min cost; constraints failed <= 0; one seed: "
                       "noise unknown, so every difference decides (--seeds N\nreplicates).\n",
                       0),
            0U)
      << out_;
  EXPECT_NE(out_.find("warning: time-slice-4 lost 2 of 4 pods: 2 failed because of neighbours"),
            std::string::npos)
      << out_;
  const nlohmann::json s = summary("r");
  EXPECT_EQ(s["decision"]["recommended"], "whole");
  EXPECT_EQ(s["decision"]["breaks_constraints"]["time-slice-4"][0], "failed <= 0");
  const std::string md = read_file(dir_ / "r" / "report.md");
  EXPECT_NE(md.find("Recommended: whole"), std::string::npos);
  EXPECT_LT(md.find("Recommended: whole"), md.find("## Summary"));
  EXPECT_NE(md.find("Warning: time-slice-4 lost 2 of 4 pods"), std::string::npos);
  EXPECT_NE(md.find("failed: neighbours"), std::string::npos);
  const std::string html = read_file(dir_ / "r" / "report.html");
  EXPECT_NE(html.find("Recommended: whole"), std::string::npos);
  EXPECT_NE(html.find("failed: neighbours"), std::string::npos);
  EXPECT_EQ(html.find("neighbour_failures"), std::string::npos);

  // Without the constraint the costs tie (one cluster, one horizon): the scenario's order
  // decides, so the constraint is what kept time-slice-4 out.
  const std::string free = scenario("decide:\n  objective: [min cost]");
  ASSERT_EQ(slicelab("compare --seeds 1 " + shell_quote(free) + " -q --out " +
                     shell_quote((dir_ / "free").string())),
            0)
      << err_;
  EXPECT_EQ(summary("free")["decision"]["recommended"], "time-slice-4");
  EXPECT_NE(summary("free")["decision"]["text"].get<std::string>().find(
                "equal on every objective (the scenario's order decides)"),
            std::string::npos);
}

TEST_F(DecideCli, PerCompletedPodFiguresAndFailureCauses) {
  const std::string file = scenario("");
  ASSERT_EQ(slicelab("compare --seeds 1 " + shell_quote(file) + " -q --out " +
                     shell_quote((dir_ / "r").string())),
            0)
      << err_;
  const nlohmann::json s = summary("r");
  EXPECT_EQ(s["decision"]["recommended"], "whole");  // the default: most completed pods first
  EXPECT_EQ(s["decision"]["basis"].get<std::string>().rfind("Decided (default objective)", 0), 0U);
  const nlohmann::json& ts = s["policies"][0];
  const nlohmann::json& whole = s["policies"][1];
  // whole: 1 GPU for 400 s = 1/9 GPU-h allocated and provisioned, x $3.67, over 4 pods.
  EXPECT_NEAR(whole["gpu_hours"]["per_completed"].get<double>(), (400.0 / 3600) / 4, 1e-9);
  EXPECT_NEAR(whole["cost_per_completed_usd"].get<double>(), (400.0 / 3600) * 3.67 / 4, 1e-9);
  EXPECT_NEAR(ts["cost_per_completed_usd"].get<double>(), ts["cost_usd"].get<double>() / 2, 1e-9);
  EXPECT_EQ(ts["pods"]["failed"], 2);
  EXPECT_EQ(ts["neighbour_failures"], 2);
  EXPECT_EQ(ts["pods"]["failed_own_memory"], 0);
  EXPECT_EQ(ts["pods"]["failed_faults"], 0);
  EXPECT_EQ(whole["pods"]["failed"], 0);
}

TEST_F(DecideCli, DecideErrorsNameFileLineAndColumn) {
  const auto error_of = [&](const std::string& decide) {
    const std::string file = scenario(decide);
    return testing::message_of([&] { load_scenario(file); });
  };
  const std::string file = (dir_ / "cheap.yaml").string();
  EXPECT_EQ(error_of("decide:\n  objective: [min cost, fastest jct]"),
            file +
                ":14:25: decide.objective[1]: expected 'max METRIC' or 'min METRIC', found "
                "'fastest jct'");
  EXPECT_EQ(error_of("decide:\n  constraints: [\"failed <= lots\"]"),
            file + ":14:17: decide.constraints[0]: 'lots' is not a number (in 'failed <= lots')");
  EXPECT_EQ(error_of("decide:\n  objectives: [min cost]"),
            file + ":14:3: decide: unknown key 'objectives' (did you mean 'objective'?)");
}

// Every command that prints a table prints one JSON document instead with --format json.
TEST_F(DecideCli, FormatJsonPrintsOneDocumentPerCommand) {
  const std::string file = scenario("");
  const std::string out = shell_quote((dir_ / "r").string());
  const auto format_of = [&](const std::string& args) {
    EXPECT_EQ(slicelab(args + " --format json"), 0) << args << ": " << err_;
    const nlohmann::json doc = nlohmann::json::parse(out_, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << args << ": " << out_;
    // plan.json of version 1 named itself by "kind" only; version 2 has "format" too.
    return doc.is_discarded() ? std::string("not JSON")
                              : doc.value("format", doc.value("kind", std::string()));
  };
  EXPECT_EQ(format_of("compare " + shell_quote(file) + " --force --out " + out),
            "slicelab.seeds/1");  // 10 seeds by default: the means and their intervals
  EXPECT_EQ(summary("r")["decision"]["recommended"], "whole");
  EXPECT_EQ(format_of("run --seeds 1 " + shell_quote(file) + " --force --out " + out),
            "slicelab.summary/1");
  EXPECT_EQ(format_of("plugins"), "slicelab.plugins/1");
  EXPECT_EQ(
      format_of("plan " +
                shell_quote(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/capacity-plan.yaml") +
                " --force --out " + shell_quote((dir_ / "plan").string())),
      "slicelab.plan/2");
  EXPECT_EQ(format_of("diff " + out + " " + out), "slicelab.diff/2");
  EXPECT_NE(slicelab("plugins --format yaml"), 0);
}

}  // namespace
}  // namespace slicelab
