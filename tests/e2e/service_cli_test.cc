// Inference services end to end: `slicelab compare` on a scenario with a service, its figures in
// summary.json (services.*, per_service), services.csv and the terminal's per-service table, a
// service-named decide: constraint that changes the recommendation, and its errors located in
// the file.
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

// One A100-80GB for an hour. Service chat: two replicas asking half a GPU each, 30 requests/s of
// 50 ms served one at a time on half the SMs. Under whole cards only one replica finds the GPU:
// it takes all 30 requests/s at a capacity of 20, its queue fills and drops. Time-slicing with
// two replicas per GPU places both, whose requests together fill the SMs: each is an M/M/1
// queue at 15 and 20 requests/s (p99 ln 100 / 5 = 921 ms, plus turn waits of a millisecond).
const char* const kOneService = R"(name: one-service
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
engine:
  until: 1h
workload:
  services:
    - {name: chat, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 10Gi, replicas: 2, rate: 30,
       service_time: {mean: 50ms, exponential: true}, request_sm: 0.5, slo: {p99: 2s}}
DECIDE
policies:
  - {name: whole, placement: first-fit}
  - {name: time-slice-2, placement: first-fit, sharing: {mode: time-slice, replicas: 2}}
)";

class ServiceCli : public testing::TempFilesTest {
 protected:
  std::string scenario(const std::string& decide) {
    std::string text = kOneService;
    text.replace(text.find("DECIDE"), 6, decide);
    return write("one.yaml", text);
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

TEST_F(ServiceCli, AServiceConstraintRecommendsThePolicyThatMeetsIt) {
  const std::string decide = "decide:\n  objective: [max within_slo]";
  ASSERT_EQ(slicelab("compare " + shell_quote(scenario(decide)) + " --seed 1 --out " +
                     shell_quote((dir_ / "r").string())),
            0)
      << err_;
  const nlohmann::json s = summary("r");
  EXPECT_EQ(s["workload"]["pods"], 0);
  EXPECT_EQ(s["workload"]["services"], 1);
  const nlohmann::json& whole = s["policies"][0];
  EXPECT_NEAR(whole["services"]["requests"].get<double>(), 108000, 1);
  const nlohmann::json& chat = whole["per_service"][0];
  EXPECT_EQ(chat["service"], "chat");
  EXPECT_EQ(chat["unplaced_peak"], 1);
  EXPECT_GT(chat["dropped"].get<double>(), 0.25 * 108000);
  EXPECT_EQ(chat["slo_met"], false);
  const nlohmann::json& shared = s["policies"][1]["per_service"][0];
  EXPECT_EQ(shared["unplaced_peak"], 0);
  EXPECT_EQ(shared["slo_met"], true);
  EXPECT_NEAR(shared["latency_s"]["p99"].get<double>(), std::log(100.0) / 5, 0.1);
  EXPECT_EQ(s["decision"]["recommended"], "time-slice-2");
  EXPECT_NE(out_.find("per service"), std::string::npos) << out_;
  EXPECT_NE(out_.find("services.csv"), std::string::npos) << out_;
  const std::string csv = read_file(dir_ / "r" / "services.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "policy,time_s,service,rate,latency_p50_s,latency_p95_s,latency_p99_s,lost,"
            "replicas_wanted,replicas_placed,replicas_ready");
  // 60 minutes x 2 policies, one service.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 120);

  // A bound within whole's p99 but not time-slicing's: no policy meets it.
  const std::string tight =
      "decide:\n  objective: [max within_slo]\n  constraints: [\"latency_p99[chat] <= 0.5\"]";
  ASSERT_EQ(slicelab("compare " + shell_quote(scenario(tight)) + " --seed 1 -q --out " +
                     shell_quote((dir_ / "t").string())),
            0)
      << err_;
  const nlohmann::json t = summary("t");
  EXPECT_TRUE(t["decision"]["recommended"].is_null());
  EXPECT_NE(t["decision"]["text"].get<std::string>().find("latency_p99[chat] = 9"),
            std::string::npos)
      << t["decision"];
}

TEST_F(ServiceCli, AServiceNamedTargetNamesAServiceOfTheWorkload) {
  const std::string bad = "decide:\n  constraints: [\"latency_p99[search] <= 1\"]";
  ASSERT_NE(slicelab("validate " + shell_quote(scenario(bad))), 0);
  EXPECT_NE(err_.find("one.yaml:12:17: decide.constraints[0]: names service 'search', which the "
                      "workload does not have (its services: chat)"),
            std::string::npos)
      << err_;
}

}  // namespace
}  // namespace slicelab
