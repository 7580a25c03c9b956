// `slicelab plan` end to end on the shipped capacity-planning scenario: the plan.json contract
// shared with the report, capacity.csv, plan.md, its run time, and CLI errors.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class PlanCli : public testing::TempFilesTest {
 protected:
  int slicelab(const std::string& args) {
    const testing::CliRun r = testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab");
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  std::string out_, err_;
};

TEST_F(PlanCli, ShippedScenarioWritesThePlanContract) {
  const std::string scenario = std::string(SLICELAB_SOURCE_DIR) + "/scenarios/capacity-plan.yaml";
  const fs::path dir = dir_ / "plan";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(slicelab("plan " + scenario + " -j 2 --out " + dir.string()), 0) << err();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 60.0);  // aim: a few seconds on one core

  const json j = json::parse(testing::read_file(dir / "plan.json"));
  EXPECT_EQ(j.at("kind"), "plan");
  EXPECT_EQ(j.at("scenario"), "capacity-plan");
  EXPECT_EQ(j.at("growth"), 1.5);
  ASSERT_EQ(j.at("targets").size(), 3U);
  EXPECT_EQ(j.at("targets")[0],
            (json{{"metric", "queue_delay_p99_s"}, {"op", "<="}, {"value", 300}}));
  EXPECT_EQ(j.at("targets")[1].at("op"), ">=");
  EXPECT_NE(j.at("scaled").get<std::string>().find("h100"), std::string::npos);
  ASSERT_EQ(j.at("policies").size(), 4U);
  std::string csv_expected = "policy,gpus,nodes,value,meets\n";
  size_t feasible = 0;
  for (const auto& p : j.at("policies")) {
    SCOPED_TRACE(p.at("policy").get<std::string>());
    const auto& curve = p.at("curve");
    ASSERT_FALSE(curve.empty());
    for (size_t i = 1; i < curve.size(); ++i)
      EXPECT_LT(curve[i - 1].at("gpus"), curve[i].at("gpus"));
    for (const auto& c : curve) {
      const auto& v = c.at("value");
      csv_expected += fmt::format("{},{},{},{},{}\n", p.at("policy").get<std::string>(),
                                  c.at("gpus").get<size_t>(), c.at("nodes").get<size_t>(),
                                  v.is_null() ? "" : fmt::format("{:.9g}", v.get<double>()),
                                  c.at("meets").get<bool>() ? "true" : "false");
    }
    if (p.at("feasible").get<bool>()) {
      ++feasible;
      // Monotone-safety: the recommended size is on the curve, and it meets the targets.
      bool found = false;
      for (const auto& c : curve)
        if (c.at("gpus") == p.at("gpus")) {
          found = true;
          EXPECT_TRUE(c.at("meets").get<bool>());
          EXPECT_EQ(c.at("nodes"), p.at("nodes"));
        }
      EXPECT_TRUE(found);
      const auto& m = p.at("metrics");
      EXPECT_LE(m.at("queue_delay_p99_s").get<double>(), 300.0);
      EXPECT_GE(m.at("slo_attainment").get<double>(), 0.99);
      EXPECT_EQ(m.at("failed"), 0);
      EXPECT_GT(p.at("cost_per_hour").get<double>(), 0.0);
      // A smaller size on the curve fails (the search found a boundary, not just any size).
      for (const auto& c : curve)
        if (c.at("gpus") < p.at("gpus")) {
          EXPECT_FALSE(c.at("meets").get<bool>()) << c;
        }
    }
    if (!p.at("fit").is_null()) {
      EXPECT_EQ(p.at("fit").at("model"), "value = a + b / gpus");
      EXPECT_EQ(p.at("fit").at("coefficients").size(), 2U);
      EXPECT_LE(p.at("fit").at("r2").get<double>(), 1.0);
      EXPECT_FALSE(p.at("fit").at("points").empty());
    }
  }
  EXPECT_GE(feasible, 2U);
  EXPECT_EQ(testing::read_file(dir / "capacity.csv"), csv_expected);
  const std::string rec = j.at("recommendation");
  EXPECT_EQ(rec.rfind("Use ", 0), 0U) << rec;
  EXPECT_NE(testing::read_file(dir / "plan.md").find(rec), std::string::npos);
  EXPECT_NE(out().find(rec), std::string::npos);

  // Deterministic: runs with other thread counts write the same bytes.
  for (const char* jobs : {"1", "7"}) {
    const fs::path again = dir_ / (std::string("again-") + jobs);
    ASSERT_EQ(slicelab("plan " + scenario + " -j " + jobs + " -q --out " + again.string()), 0)
        << err();
    EXPECT_EQ(testing::read_file(again / "plan.json"), testing::read_file(dir / "plan.json"))
        << jobs;
    EXPECT_EQ(testing::read_file(again / "capacity.csv"), testing::read_file(dir / "capacity.csv"))
        << jobs;
  }
}

TEST_F(PlanCli, FlagsOverrideAndBadFlagsFail) {
  const std::string scenario = write("s.yaml", R"(cluster:
  node_groups: [{name: g, count: 1, gpu_model: T4, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 16Gi}]
workload:
  pods:
    - {arrival: 0, duration: 100, gpu_count: 1}
    - {arrival: 0, duration: 100, gpu_count: 1}
    - {arrival: 0, duration: 100, gpu_count: 1}
policies: [{placement: first-fit}]
)");
  const fs::path dir = dir_ / "p";
  EXPECT_EQ(slicelab("plan " + scenario + " -q --out " + dir.string()), 1);
  EXPECT_NE(err().find("no targets"), std::string::npos) << err();
  ASSERT_EQ(slicelab("plan " + scenario + " -q --target 'queue_delay_max_s<=0' --growth 2 --out " +
                     dir.string()),
            0)
      << err();
  const json j = json::parse(testing::read_file(dir / "plan.json"));
  EXPECT_EQ(j.at("growth"), 2);
  EXPECT_EQ(j.at("policies")[0].at("gpus"), 6);  // 6 pods at t = 0, none may wait
  EXPECT_EQ(slicelab("plan " + scenario + " --target 'queue_delay_max_s<300'"), 2);  // usage
  EXPECT_NE(err().find("expected METRIC<=VALUE"), std::string::npos) << err();
}

}  // namespace
}  // namespace slicelab
