// `slicelab plan` end to end on the shipped capacity-planning scenario: the plan.json contract
// shared with the report, capacity.csv, plan.md, its run time, and CLI errors.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
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
  int runs_ = 0;
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
  EXPECT_EQ(j.at("format"), "slicelab.plan/2");
  // No seeds: in the scenario: the default 10 replications from its seed: 7.
  EXPECT_EQ(j.at("seeds"), (json{7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(j.at("scenario"), "capacity-plan");
  EXPECT_EQ(j.at("growth"), 1.5);
  ASSERT_EQ(j.at("targets").size(), 3U);
  EXPECT_EQ(j.at("targets")[0],
            (json{{"metric", "queue_delay_p99_s"}, {"op", "<="}, {"value", 300}}));
  EXPECT_EQ(j.at("targets")[1].at("op"), ">=");
  EXPECT_NE(j.at("scaled").get<std::string>().find("h100"), std::string::npos);
  ASSERT_EQ(j.at("policies").size(), 4U);
  std::string csv_expected = "policy,gpus,nodes,value,meets,value_min,value_max,seeds_meeting\n";
  size_t feasible = 0;
  for (const auto& p : j.at("policies")) {
    SCOPED_TRACE(p.at("policy").get<std::string>());
    const auto& curve = p.at("curve");
    ASSERT_FALSE(curve.empty());
    for (size_t i = 1; i < curve.size(); ++i)
      EXPECT_LT(curve[i - 1].at("gpus"), curve[i].at("gpus"));
    const auto text = [](const json& v) {
      return v.is_null() ? std::string() : fmt::format("{:.9g}", v.get<double>());
    };
    for (const auto& c : curve) {
      const auto& e = c.at("estimates").at("queue_delay_p99_s");
      csv_expected += fmt::format(
          "{},{},{},{},{},{},{},{}\n", p.at("policy").get<std::string>(),
          c.at("gpus").get<size_t>(), c.at("nodes").get<size_t>(), text(c.at("value")),
          c.at("meets").get<bool>() ? "true" : "false", e.is_null() ? "" : text(e.at("min")),
          e.is_null() ? "" : text(e.at("max")), c.at("seeds_meeting").get<size_t>());
      // meets = met in every seed; the mean is the estimate's.
      EXPECT_EQ(c.at("meets").get<bool>(), c.at("seeds_meeting").get<size_t>() == 10U) << c;
      if (!e.is_null()) {
        EXPECT_EQ(e.at("n"), 10);
        EXPECT_EQ(c.at("value"), e.at("mean"));
        EXPECT_LE(e.at("min").get<double>(), e.at("mean").get<double>());
        EXPECT_GE(e.at("max").get<double>(), e.at("mean").get<double>());
      }
    }
    // Every seed's own size, and the plan's size is at least the largest of them.
    ASSERT_EQ(p.at("seed_sizes").size(), 10U);
    for (size_t i = 0; i < 10; ++i) EXPECT_EQ(p.at("seed_sizes")[i].at("seed"), 7 + i);
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
      int largest = 0, smallest = 1 << 30;
      for (const auto& z : p.at("seed_sizes")) {
        largest = std::max(largest, z.at("group_nodes").get<int>());
        smallest = std::min(smallest, z.at("group_nodes").get<int>());
      }
      EXPECT_GE(p.at("group_nodes").get<int>(), largest);
      EXPECT_EQ(p.at("seed_size_range"), (json{{"min", smallest}, {"max", largest}}));
      // The figures at the size: means with their interval and seed range; the target holds
      // in every seed, so at the worst seed.
      const auto& est = p.at("estimates").at("queue_delay_p99_s");
      EXPECT_EQ(est.at("n"), 10);
      EXPECT_LE(est.at("max").get<double>(), 300.0);
      EXPECT_LE(est.at("ci95")[0].get<double>(), est.at("mean").get<double>());
      EXPECT_GE(est.at("ci95")[1].get<double>(), est.at("mean").get<double>());
      const auto& m = p.at("metrics");
      EXPECT_EQ(m.at("queue_delay_p99_s"), est.at("mean"));
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
  EXPECT_NE(out().find("sized over 10 seeds (7-16)"), std::string::npos) << out();
  EXPECT_NE(testing::read_file(dir / "plan.md").find("Sized over 10 seeds (7-16)"),
            std::string::npos);

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

// Which seeds a plan sizes over: the scenario's seeds:, --seeds N from its first, a --seeds
// list, --seed alone; they are named in plan.json, plan.md and the terminal.
TEST_F(PlanCli, SeedsComeFromTheScenarioOrTheCommandLine) {
  const std::string scenario = write("s.yaml", R"(seeds: [3, 5]
cluster:
  node_groups: [{name: g, count: 1, gpu_model: T4, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 16Gi}]
workload:
  pods:
    - {arrival: 0, duration: 100, gpu_count: 1}
    - {arrival: 0, duration: 100, gpu_count: 1}
policies: [{placement: first-fit}]
plan:
  targets: {queue_delay_max_s: {max: 0}}
)");
  const auto seeds_of = [&](const std::string& flags) {
    const fs::path dir = dir_ / fmt::format("p{}", runs_++);
    EXPECT_EQ(slicelab("plan " + scenario + " " + flags + " --out " + dir.string()), 0) << err();
    const json j = json::parse(testing::read_file(dir / "plan.json"));
    // A pod list is the same workload in every seed: every seed needs 2 GPUs.
    for (const auto& z : j.at("policies")[0].at("seed_sizes")) EXPECT_EQ(z.at("group_nodes"), 2);
    EXPECT_EQ(j.at("policies")[0].at("group_nodes"), 2);
    return j.at("seeds").get<std::vector<uint64_t>>();
  };
  EXPECT_EQ(seeds_of(""), (std::vector<uint64_t>{3, 5}));
  EXPECT_NE(out().find("sized over 2 seeds (3, 5)"), std::string::npos) << out();
  EXPECT_EQ(seeds_of("--seeds 3"), (std::vector<uint64_t>{3, 4, 5}));
  EXPECT_NE(out().find("sized over 3 seeds (3-5)"), std::string::npos) << out();
  EXPECT_EQ(seeds_of("--seeds 1,2"), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(seeds_of("--seed 9"), (std::vector<uint64_t>{9}));
  EXPECT_NE(out().find("sized over one seed (9)"), std::string::npos) << out();
  EXPECT_EQ(slicelab("plan " + scenario + " --seeds 0 -q --out " + (dir_ / "x").string()), 2);
  EXPECT_NE(err().find("--seeds"), std::string::npos) << err();
  EXPECT_EQ(slicelab("plan " + scenario + " --seeds 1,x -q --out " + (dir_ / "x").string()), 2);
  EXPECT_EQ(slicelab("plan " + scenario + " --seed 1 --seeds 2 -q --out " + (dir_ / "x").string()),
            2);
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

}  // namespace
}  // namespace slicelab
