// Shadow mode on record, end to end: `slicelab serve extender --shadow --record DIR` against the
// fake API server writes a decision per pending GPU pod; a scheduler stand-in then binds some
// pods where slicelab would have and some elsewhere, late or never; with the pod events written
// as the recorder writes them (docs/recording-format.md; the recorder itself is another
// branch's), `slicelab report DIR` must count exactly what the stand-in did, and agree with the
// extender's own running figures.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/scenario_kube_objects.h"
#include "tests/support/temp_files.h"
#include "workloads/rfc3339.h"

namespace slicelab::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kShadowScenario =
    std::string(SLICELAB_SOURCE_DIR) + "/tests/data/extender-replay.yaml";

std::vector<json> shadow_lines_of_type(const fs::path& dir, const std::string& type) {
  std::vector<json> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.path().filename().string().starts_with("decisions-")) continue;
    std::ifstream in(e.path());
    for (std::string l; std::getline(in, l);) {
      const json j = json::parse(l, nullptr, false);
      if (!j.is_discarded() && j.value("type", "") == type) out.push_back(j);
    }
  }
  return out;
}

double shadow_seconds(const json& line) {
  std::string error;
  return parse_rfc3339_seconds(line.value("at", ""), error).value_or(-1);
}

std::string shadow_time(double s) {
  const auto whole = static_cast<std::time_t>(s);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>((s - whole) * 1000) % 1000);
  return out;
}

class ShadowRecordTest : public TempFilesTest {};

TEST_F(ShadowRecordTest, ReportCountsWhatTheSchedulerDidAgainstSlicelab) {
  const Scenario scenario = load_scenario(kShadowScenario);
  FakeApiServer api;
  std::vector<std::string> node_names;
  for (json& n : scenario_nodes(scenario))
    node_names.push_back(api.add_node(n)["metadata"]["name"]);
  const fs::path rec = dir_ / "rec";
  const std::string command = "echo $$; exec " + shell_quote(SLICELAB_BINARY) +
                              " serve extender --scenario " + shell_quote(kShadowScenario) +
                              " -p best-fit --shadow --record " + shell_quote(rec.string()) +
                              " --listen 127.0.0.1:0 --api-server " + api.url() + " 2>&1";
  FILE* out = ::popen(command.c_str(), "r");
  ASSERT_NE(out, nullptr);
  char line[4096];
  std::string seen;
  int pid = -1, port = -1;
  while (port < 0 && std::fgets(line, sizeof line, out) != nullptr) {
    seen += line;
    const std::string l = line;
    if (pid < 0) {
      pid = std::stoi(l);
    } else if (const size_t at = l.find("listening on 127.0.0.1:"); at != std::string::npos) {
      port = std::stoi(l.substr(at + 23));
    }
  }
  ASSERT_GT(port, 0) << seen;
  EXPECT_TRUE(fs::exists(rec / "recording.json"));
  httplib::Client client("127.0.0.1", port);
  bool ready = false;
  for (int i = 0; i < 400 && !ready; ++i) {
    const auto r = client.Get("/readyz");
    ready = r && r->status == 200;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_TRUE(ready) << seen;

  // Six pending GPU pods: the extender decides each one as its watch reports it.
  constexpr size_t kPods = 6;
  std::vector<json> pods;
  for (size_t i = 0; i < kPods; ++i) pods.push_back(api.add_pod(scenario_pod(scenario.pods[i])));
  std::map<std::string, json> decision;  // pod name -> its DECISION line
  for (int i = 0; i < 400 && decision.size() < kPods; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    for (const json& d : shadow_lines_of_type(rec, "DECISION")) decision[d["name"]] = d;
  }
  ASSERT_EQ(decision.size(), kPods) << seen;

  // The scheduler stand-in: pods 0, 2, 3 on slicelab's node at once, pod 1 on another node,
  // pod 4 on slicelab's node five minutes later (as the recorder will say), pod 5 never.
  std::map<std::string, std::pair<std::string, double>> bound;  // name -> node, at
  for (size_t i = 0; i < 5; ++i) {
    const std::string name = pods[i]["metadata"]["name"];
    const json& d = decision.at(name);
    std::string node = d["node"];
    EXPECT_EQ(d["uid"], pods[i]["metadata"]["uid"]);
    EXPECT_GE(d["feasible"].get<int>(), 1);
    EXPECT_FALSE(d["gpus"].empty());
    if (i == 1) node = node == node_names[0] ? node_names[1] : node_names[0];
    ASSERT_TRUE(api.modify_pod("default", name, {{"spec", {{"nodeName", node}}}}));
    bound[name] = {node, shadow_seconds(d) + (i == 4 ? 300.0 : 1.0)};
  }
  // The extender's own figures see the same bindings (over /metrics), then it stops: its last
  // FIGURES line holds them.
  const auto metric = [&](const std::string& series) {
    const auto r = client.Get("/metrics");
    if (!r) return std::string();
    const size_t at = r->body.find("\n" + series + " ");
    return at == std::string::npos
               ? std::string()
               : r->body.substr(at + series.size() + 2,
                                r->body.find('\n', at + 1) - at - series.size() - 2);
  };
  for (int i = 0;
       i < 400 && metric("slicelab_shadow_bound_pods_total{agreement=\"same_node\"}") != "4"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_EQ(metric("slicelab_shadow_bound_pods_total{agreement=\"same_node\"}"), "4");
  EXPECT_EQ(metric("slicelab_shadow_bound_pods_total{agreement=\"other_node\"}"), "1");
  EXPECT_EQ(metric("slicelab_shadow_record_lines_total"), std::to_string(kPods));
  EXPECT_EQ(metric("slicelab_shadow_record_dropped_total"), "0");
  // The extender's recorder writes the cluster's side beside the decisions: every pod created,
  // and each binding the scheduler stand-in made, on its node.
  std::map<std::string, std::string> recorded_node;  // pod name -> its recorded spec.nodeName
  size_t recorded_pods = 0;
  const auto read_recorded = [&] {
    recorded_node.clear();
    recorded_pods = 0;
    std::ifstream in(rec / "events-000001.jsonl");
    for (std::string l; std::getline(in, l);) {
      const json e = json::parse(l, nullptr, /*allow_exceptions=*/false);
      // A line being written, and the recorder's own lines (START, RELIST) and nodes.
      if (e.is_discarded() || e.value("kind", "") != "Pod" || !e.contains("object")) continue;
      const json& md = e["object"]["metadata"];
      if (e["type"] == "LISTED" || e["type"] == "ADDED") ++recorded_pods;
      const json& spec = e["object"]["spec"];
      if (spec.contains("nodeName")) recorded_node[md["name"]] = spec["nodeName"];
    }
  };
  for (int i = 0; i < 400 && (read_recorded(), recorded_node.size() < bound.size()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ::kill(pid, SIGTERM);
  while (std::fgets(line, sizeof line, out) != nullptr) seen += line;
  const int status = ::pclose(out);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << seen;
  const std::vector<json> figures = shadow_lines_of_type(rec, "FIGURES");
  ASSERT_FALSE(figures.empty());
  EXPECT_EQ(figures.back()["decisions"], kPods);
  EXPECT_EQ(figures.back()["same_node"], 4);
  EXPECT_EQ(figures.back()["different_node"], 1);

  EXPECT_EQ(recorded_pods, kPods);
  ASSERT_EQ(recorded_node.size(), bound.size());
  for (const auto& [name, b] : bound) EXPECT_EQ(recorded_node[name], b.first) << name;
  // The recorded side in real time: every binding within a second of its decision, so the
  // agreement holds and none waited past --pending-after but the one never bound.
  const CliRun live = run_program(
      SLICELAB_BINARY, "report " + shell_quote(rec.string()) + " --format json", dir_, "live");
  ASSERT_EQ(live.status, 0) << live.err;
  EXPECT_EQ(json::parse(live.out)["same_node"], 4) << live.out;
  EXPECT_EQ(json::parse(live.out)["other_node"], 1) << live.out;

  // The pod events again, written by hand with pod 4 bound five minutes after its decision (a
  // wait the test cannot spend in real time), in the recorder's format.
  {
    std::ofstream events(rec / "events-000001.jsonl");
    int seq = 1;
    const auto event = [&](double at, const std::string& type, const json& object) {
      events << json{{"seq", seq++},
                     {"at", shadow_time(at)},
                     {"kind", "Pod"},
                     {"type", type},
                     {"uid", object["metadata"]["uid"]},
                     {"rv", object["metadata"]["resourceVersion"]},
                     {"object", object}}
                    .dump()
             << "\n";
    };
    for (const json& p : pods)
      event(shadow_seconds(decision.at(p["metadata"]["name"])) - 0.5, "ADDED", p);
    std::vector<std::pair<double, std::string>> order;
    order.reserve(bound.size());
    for (const auto& [name, b] : bound) order.emplace_back(b.second, name);
    std::sort(order.begin(), order.end());
    for (const auto& [at, name] : order) event(at, "MODIFIED", api.pod("default", name));
  }
  const CliRun r = run_program(
      SLICELAB_BINARY, "report " + shell_quote(rec.string()) + " --format json", dir_, "report");
  ASSERT_EQ(r.status, 0) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["decided"], kPods);
  EXPECT_EQ(report["bound"], 5);
  EXPECT_EQ(report["same_node"], 4);
  EXPECT_EQ(report["other_node"], 1);
  EXPECT_DOUBLE_EQ(report["agreement"].get<double>(), 0.8);
  // Pod 4 (bound 300 s after the decision) and pod 5 (still pending at the window's end, which
  // pod 4's binding sets 300 s on).
  EXPECT_EQ(report["placeable_pending"], 2);
  EXPECT_EQ(report["still_pending"], 1);
  EXPECT_EQ(report["policy"], "best-fit");
  EXPECT_EQ(report["dropped_decisions"], 0);
  EXPECT_EQ(report["fragmented_gpus"]["actual"]["last"], figures.back()["fragmented_gpus_actual"]);
  // A threshold longer than the window (about 300 s) counts none.
  const CliRun longer = run_program(
      SLICELAB_BINARY, "report " + shell_quote(rec.string()) + " --format json --pending-after 10m",
      dir_, "report-longer");
  ASSERT_EQ(longer.status, 0) << longer.err;
  EXPECT_EQ(json::parse(longer.out)["placeable_pending"], 0);
  const CliRun text =
      run_program(SLICELAB_BINARY, "report " + shell_quote(rec.string()), dir_, "report-text");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("80.0%"), std::string::npos) << text.out;
}

// --record without --shadow is a usage error; a folder that is not a recording is refused.
TEST_F(ShadowRecordTest, RecordNeedsShadowAndARecordingFolder) {
  write("mine.txt", "not a recording");
  const std::string base =
      "serve extender --scenario " + shell_quote(kShadowScenario) + " --nodes " +
      shell_quote(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/kubernetes/nodes.json");
  const CliRun no_shadow = run_program(
      SLICELAB_BINARY, base + " --record " + shell_quote((dir_ / "r").string()), dir_, "no-shadow");
  EXPECT_EQ(no_shadow.status, 2);
  EXPECT_NE(no_shadow.err.find("--record writes shadow mode's decisions"), std::string::npos)
      << no_shadow.err;
  const CliRun foreign = run_program(
      SLICELAB_BINARY, base + " --shadow --record " + shell_quote(dir_.string()), dir_, "foreign");
  EXPECT_EQ(foreign.status, 1);
  EXPECT_NE(foreign.err.find("holds files but no recording.json"), std::string::npos)
      << foreign.err;
}

}  // namespace
}  // namespace slicelab::testing
