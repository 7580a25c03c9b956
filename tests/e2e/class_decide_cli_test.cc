// Per-class results and targets end to end: `slicelab compare` on a workload with two classes,
// summary.json's per_class blocks, the --wide per-class table, the report's "Per workload class"
// table, a class-named decide: constraint that changes the recommendation, and its errors
// located in the file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using testing::read_file;
using testing::shell_quote;

// One A100-80GB. A 300 s training pod arrives first, two 50 s inference pods at 10 s. whole runs
// them one at a time: the training pod 0..300 s, the inference pods after it (queued 290 s and
// 340 s). time-slice-4 runs all three at once: the inference pods start on arrival, the training
// pod shares its GPU and finishes later.
const char* const kTwoClasses = R"(name: two-classes
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: train, class: training, duration: 300s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: infer-a, class: inference, arrival: 10s, duration: 50s, gpu_count: 1, gpu_memory_mib: 10000}
    - {name: infer-b, class: inference, arrival: 10s, duration: 50s, gpu_count: 1, gpu_memory_mib: 10000}
engine:
  sample_interval: 1m
DECIDE
policies:
  - {name: whole, placement: first-fit}
  - {name: time-slice-4, placement: first-fit, sharing: {mode: time-slice, replicas: 4}}
)";

class ClassDecideCli : public testing::TempFilesTest {
 protected:
  std::string scenario(const std::string& decide) {
    std::string text = kTwoClasses;
    text.replace(text.find("DECIDE"), 6, decide);
    return write("two.yaml", text);
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

TEST_F(ClassDecideCli, AClassConstraintRecommendsThePolicyThatMeetsIt) {
  // The training jobs' completion time alone: whole finishes its training pod first.
  const std::string goal = "decide:\n  objective: [max completed, \"min jct_p99[training]\"]";
  ASSERT_EQ(slicelab("compare " + shell_quote(scenario(goal)) + " -q --out " +
                     shell_quote((dir_ / "free").string())),
            0)
      << err_;
  const nlohmann::json free = summary("free");
  EXPECT_EQ(free["decision"]["recommended"], "whole");
  // whole: per class, from the hand schedule above.
  const nlohmann::json& w = free["policies"][0]["per_class"];
  ASSERT_EQ(w.size(), 2U);
  EXPECT_EQ(w[0]["class"], "inference");
  EXPECT_EQ(w[0]["pods"]["total"], 2);
  EXPECT_EQ(w[0]["pods"]["completed"], 2);
  EXPECT_DOUBLE_EQ(w[0]["queue_delay_s"]["p50"].get<double>(), 290);
  EXPECT_DOUBLE_EQ(w[0]["queue_delay_s"]["p99"].get<double>(), 340);
  EXPECT_DOUBLE_EQ(w[0]["jct_s"]["p99"].get<double>(), 390);
  EXPECT_TRUE(w[0]["slo"]["attainment"].is_null());
  EXPECT_NEAR(w[0]["gpu_hours"]["allocated"].get<double>(), 100.0 / 3600, 1e-9);
  EXPECT_EQ(w[1]["class"], "training");
  EXPECT_DOUBLE_EQ(w[1]["jct_s"]["p99"].get<double>(), 300);
  EXPECT_NEAR(w[1]["gpu_hours"]["allocated"].get<double>(), 300.0 / 3600, 1e-9);

  const std::string limited =
      "decide:\n  objective: [max completed, \"min jct_p99[training]\"]\n"
      "  constraints: [\"queue_p99[inference] <= 60\"]";
  ASSERT_EQ(slicelab("compare " + shell_quote(scenario(limited)) + " --wide --report --out " +
                     shell_quote((dir_ / "r").string())),
            0)
      << err_;
  const nlohmann::json s = summary("r");
  EXPECT_EQ(s["decision"]["recommended"], "time-slice-4");
  // Ten seeds by default: the constraint must hold in every one.
  EXPECT_EQ(s["decision"]["breaks_constraints"]["whole"][0],
            "queue_p99[inference] <= 60 (met in 0 of 10 seeds)");
  EXPECT_EQ(s["decision"]["basis"],
            "Decided by max completed, then min jct_p99[training]; constraints "
            "queue_p99[inference] <= 60; a key decides only where the paired difference over 10 "
            "seeds is beyond noise (95% interval), else the next key does");
  EXPECT_EQ(out_.rfind("Recommended: time-slice-4", 0), 0U) << out_;
  // --wide: the per-class table after the main one, a row per policy and class.
  const size_t table = out_.find("\nper workload class:\n");
  ASSERT_NE(table, std::string::npos) << out_;
  EXPECT_NE(out_.find("whole         inference", table), std::string::npos) << out_;
  EXPECT_NE(out_.find("time-slice-4  training", table), std::string::npos) << out_;
  const std::string md = read_file(dir_ / "r" / "report.md");
  EXPECT_NE(md.find("Per workload class"), std::string::npos);
  EXPECT_NE(md.find("| whole | inference | 2 | 2 | 0 | 0 |"), std::string::npos) << md;

  // Without --wide, no per-class table.
  ASSERT_EQ(slicelab("compare " + shell_quote(scenario(limited)) + " --force --out " +
                     shell_quote((dir_ / "r").string())),
            0)
      << err_;
  EXPECT_EQ(out_.find("per workload class"), std::string::npos) << out_;
}

TEST_F(ClassDecideCli, WorkloadsWithoutClassesHaveNoPerClassBlock) {
  std::string text = kTwoClasses;
  text.replace(text.find("DECIDE"), 6, "");
  for (const char* cls : {"class: training, ", "class: inference, ", "class: inference, "})
    text.erase(text.find(cls), std::string(cls).size());
  const std::string file = write("plain.yaml", text);
  ASSERT_EQ(slicelab("compare " + shell_quote(file) + " --wide --out " +
                     shell_quote((dir_ / "p").string())),
            0)
      << err_;
  EXPECT_FALSE(summary("p")["policies"][0].contains("per_class"));
  EXPECT_EQ(out_.find("per workload class"), std::string::npos) << out_;
}

TEST_F(ClassDecideCli, ClassErrorsNameFileLineAndColumn) {
  const auto error_of = [&](const std::string& decide) {
    const std::string file = scenario(decide);
    return testing::message_of([&] { load_scenario(file); });
  };
  const std::string file = (dir_ / "two.yaml").string();
  EXPECT_EQ(error_of("decide:\n  constraints: [\"queue_p99[batch] <= 60\"]"),
            file +
                ":13:17: decide.constraints[0]: the workload has no pods of class 'batch' (its "
                "classes: inference, training)");
  EXPECT_EQ(error_of("decide:\n  objective: [\"min cost[inference]\"]"),
            file +
                ":13:15: decide.objective[0]: 'cost' has no per-class figure; a class-named "
                "metric is one of: completed, failed, unschedulable, pending_at_end, unplaced, "
                "queue_p50, queue_p99, jct_p50, jct_p99, slo, pods.total, gpu_hours.allocated (a "
                "service's: latency_p50, latency_p95, latency_p99, within_slo, requests_lost, "
                "slo_met)");
}

}  // namespace
}  // namespace slicelab
