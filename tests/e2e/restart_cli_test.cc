// Pins down engine.restart end to end: the slicelab binary on a small scenario where a pod fails
// out of memory and restarts, with the restarts in summary.json, pods.csv and the table; the
// loader's errors for a bad restart policy; and no restart figures for a scenario without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_file;
using testing::shell_quote;

// One A100-80GB under gpu-share: hold (60000 MiB) runs 0..100; late (30000 MiB) arrives at 5
// and fails out of memory until hold has left: back at 15, 35, 75 and 155 (10, 20, 40, 80 s).
const char* const kScenario = R"(name: restarts
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: hold, duration: 100s, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 60000}
    - {name: late, arrival: 5s, duration: 50s, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 30000}
engine:
  sample_interval: 1m
RESTART
policies:
  - {name: share, placement: first-fit, sharing: gpu-share}
)";

class RestartCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-restart-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    tmp_ = pattern;
  }
  void TearDown() override { fs::remove_all(tmp_); }
  std::string scenario(const std::string& restart) {
    std::string text = kScenario;
    text.replace(text.find("RESTART"), 7, restart);
    const std::string path = (tmp_ / "s.yaml").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(SLICELAB_BINARY, args, tmp_, "run" + std::to_string(calls_++));
  }
  std::string load_error(const std::string& restart) {
    return testing::message_of([&] { load_scenario(scenario(restart)); });
  }
  fs::path tmp_;
  int calls_ = 0;
};

TEST_F(RestartCli, TheBinaryReportsRestartsInEveryOutput) {
  const std::string s = scenario("  restart: {policy: OnFailure, backoff: 10s, max_backoff: 5m}");
  const fs::path out = tmp_ / "out";
  const testing::CliRun r =
      slicelab("compare --seeds 1 " + shell_quote(s) + " --out " + shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  // The table has a restarts column, since a run restarted pods.
  EXPECT_NE(r.out.find("restarts"), std::string::npos) << r.out;

  const json summary = json::parse(read_file(out / "summary.json"));
  const json& p = summary.at("policies").at(0);
  EXPECT_EQ(p.at("restarts").at("total").get<int>(), 4);
  EXPECT_EQ(p.at("restarts").at("pods").get<int>(), 1);
  EXPECT_EQ(p.at("pods").at("completed").get<int>(), 2);
  EXPECT_EQ(p.at("pods").at("failed").get<int>(), 0);
  // From its first arrival at 5: started at 155, finished at 205.
  EXPECT_DOUBLE_EQ(p.at("queue_delay_s").at("max").get<double>(), 150.0);
  EXPECT_DOUBLE_EQ(p.at("jct_s").at("max").get<double>(), 200.0);

  const std::string pods = read_file(out / "pods.csv");
  EXPECT_EQ(pods.substr(0, pods.find('\n')),
            "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,node,"
            "gpus,reason,isolation_error,restarts");
  EXPECT_NE(pods.find("\nshare,hold,default,completed,0,0,100,0,100,1,0,0,,,0\n"),
            std::string::npos)
      << pods;
  EXPECT_NE(pods.find("\nshare,late,default,completed,5,155,205,150,200,4,0,0,,,4\n"),
            std::string::npos)
      << pods;

  // Until 60: late, in place, is still bound to n's GPU 0 in its back-off (failed at 35, its
  // restart due at 75): failed at its last attempt (35), on its node, with 2 restarts.
  const auto until60 = [&](const std::string& restart, const std::string& dir) {
    std::string text = kScenario;
    text.replace(text.find("RESTART"), 7, restart + "\n  until: 60s");
    const std::string path = (tmp_ / (dir + ".yaml")).string();
    std::ofstream(path, std::ios::binary) << text;
    const testing::CliRun run = slicelab("compare --seeds 1 " + shell_quote(path) + " --out " +
                                         shell_quote((tmp_ / dir).string()));
    EXPECT_EQ(run.status, 0) << run.err << run.out;
    const std::string csv = read_file(tmp_ / dir / "pods.csv");
    const size_t at = csv.find("\nshare,late,");
    return at == std::string::npos ? csv : csv.substr(at + 1, csv.find('\n', at + 1) - at - 1);
  };
  const std::string held = until60("  restart: {policy: OnFailure}", "held");
  EXPECT_EQ(held.rfind("share,late,default,failed,5,35,35,,,,0,,\"out of memory on n-0 GPU 0: "
                       "needs 30000 MiB, neighbours hold 60000 of 81920 MiB\",",
                       0),
            0U)
      << held;
  EXPECT_EQ(held.substr(held.size() - 2), ",2") << held;
}

TEST_F(RestartCli, WithoutAPolicyNothingAboutRestartsIsWritten) {
  const std::string s = scenario("");
  const fs::path out = tmp_ / "out";
  const testing::CliRun r =
      slicelab("compare --seeds 1 " + shell_quote(s) + " --out " + shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(r.out.find("restarts"), std::string::npos) << r.out;
  const json summary = json::parse(read_file(out / "summary.json"));
  const json& p = summary.at("policies").at(0);
  EXPECT_FALSE(p.contains("restarts"));
  EXPECT_EQ(p.at("pods").at("failed").get<int>(), 1);
  const std::string pods = read_file(out / "pods.csv");
  EXPECT_EQ(pods.find("restarts"), std::string::npos) << pods;
  // Never is the default, written out or not.
  const std::string never = scenario("  restart: {policy: Never}");
  EXPECT_FALSE(load_scenario(never).engine.restart.enabled());
}

TEST_F(RestartCli, TheLoaderReadsTheKubeletsDefaultsAndRejectsBadSettings) {
  const Scenario sc = load_scenario(scenario("  restart: {policy: OnFailure}"));
  EXPECT_EQ(sc.engine.restart.policy, RestartKind::kOnFailure);
  EXPECT_DOUBLE_EQ(sc.engine.restart.backoff_s, 10.0);
  EXPECT_DOUBLE_EQ(sc.engine.restart.max_backoff_s, 300.0);
  EXPECT_FALSE(sc.engine.restart.reschedule);  // the kubelet's restart in place
  const Scenario job = load_scenario(scenario("  restart: {policy: OnFailure, reschedule: true}"));
  EXPECT_TRUE(job.engine.restart.reschedule);
  // A cap below the default first delay lowers it, as the kubelet does.
  const Scenario low = load_scenario(scenario("  restart: {policy: Always, max_backoff: 4s}"));
  EXPECT_EQ(low.engine.restart.policy, RestartKind::kAlways);
  EXPECT_DOUBLE_EQ(low.engine.restart.backoff_s, 4.0);
  EXPECT_DOUBLE_EQ(low.engine.restart.max_backoff_s, 4.0);
  const Scenario high = load_scenario(scenario("  restart: {policy: OnFailure, backoff: 10m}"));
  EXPECT_DOUBLE_EQ(high.engine.restart.max_backoff_s, 600.0);

  const std::string file = (tmp_ / "s.yaml").string();
  EXPECT_EQ(load_error("  restart: {policy: onfailure}"),
            file +
                ":11:21: engine.restart.policy: expected Never, OnFailure or Always, found "
                "'onfailure'");
  EXPECT_EQ(load_error("  restart: {policy: OnFailure, backoff: 0s}"),
            file +
                ":11:41: engine.restart.backoff: expected a duration of at least 1s "
                "(seconds, or a Go duration such as 90s, 1h30m, 300ms, 1.5d), found '0s'");
  EXPECT_EQ(load_error("  restart: {policy: OnFailure, backoff: 1m, max_backoff: 30s}"),
            file +
                ":11:58: engine.restart.max_backoff: the cap (30s) is below the first "
                "back-off (60s)");
  EXPECT_EQ(load_error("  restart: {policy: OnFailure, max_backof: 1m}"),
            file +
                ":11:32: engine.restart: unknown key 'max_backof' (did you mean "
                "'max_backoff'?)");
  // The fill experiment gives each pod one attempt.
  std::string fill = kScenario;
  fill.replace(fill.find("RESTART"), 7, "  restart: {policy: OnFailure}");
  fill.replace(fill.find("  pods:"), 0, "  fill: {target: 1.0}\n");
  const std::string fill_file = (tmp_ / "fill.yaml").string();
  std::ofstream(fill_file, std::ios::binary) << fill;
  std::string fill_error = "no error";
  try {
    load_scenario(fill_file);
  } catch (const InputError& e) {
    fill_error = e.what();
  }
  EXPECT_EQ(fill_error, fill_file +
                            ":12:12: engine.restart: a fill experiment gives each pod one "
                            "attempt: leave out the restart policy");
  EXPECT_EQ(load_error("  restart: {backoff: 1m}"),
            file + ":11:12: engine.restart: missing required key 'policy'");
}

}  // namespace
}  // namespace slicelab
