// The extender end to end, without a cluster: the fake API server holds the scenario's nodes,
// the extender keeps its state from the API server's watch, and a kube-scheduler stand-in
// replays the simulator's run (arrival: create the pod; start: one scheduling cycle through
// the extender; finish: delete the pod). Every decision (node and GPU indices) must equal the
// simulator's for the same scenario, policy and seed. Then shadow mode: the simulator's
// first-fit run replayed with the extender shadowing FGD, its fragmentation figures against
// the simulator's first-fit and FGD runs.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <csignal>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_cluster_writer.h"
#include "backends/k8s/cluster_connection.h"
#include "backends/k8s/extender_server.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/gpu_assignment.h"
#include "backends/k8s/resource_watch.h"
#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/kube_scheduler_driver.h"
#include "tests/support/scenario_kube_objects.h"
#include "tests/support/temp_files.h"
#include "workloads/rng.h"

namespace slicelab::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kScenario = std::string(SLICELAB_SOURCE_DIR) + "/tests/data/extender-replay.yaml";

// --- the simulator's side: pods.csv and timeseries.csv of `slicelab run` ---

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back().push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back().push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

// Rows of a CSV file as column -> value.
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  std::istringstream in(read_file(p));
  std::string line;
  std::vector<std::map<std::string, std::string>> rows;
  if (!std::getline(in, line)) return rows;
  const std::vector<std::string> header = csv_fields(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

struct SimPod {
  std::string name;
  double arrival = 0, start = -1, finish = -1;
  int node = -1;
  std::vector<int> gpus;
};

struct SimRun {
  std::vector<SimPod> pods;                        // in the scenario's pod order
  std::vector<std::pair<double, double>> samples;  // timeseries: time, fragmentation_ratio
  double fragmentation_ratio = 0;                  // summary.json, time-weighted
};

SimRun simulate(const std::string& policy, const fs::path& scratch) {
  const fs::path out = scratch / ("sim-" + policy);
  const CliRun run = run_program(SLICELAB_BINARY,
                                 "run --seeds 1 " + shell_quote(kScenario) + " -q --force -p " +
                                     policy + " --out " + shell_quote(out.string()),
                                 scratch, "sim-" + policy);
  EXPECT_EQ(run.status, 0) << run.err;
  SimRun r;
  for (const auto& row : read_csv(out / "pods.csv")) {
    SimPod p;
    p.name = row.at("pod");
    p.arrival = std::stod(row.at("arrival_s"));
    if (!row.at("start_s").empty()) p.start = std::stod(row.at("start_s"));
    if (!row.at("finish_s").empty()) p.finish = std::stod(row.at("finish_s"));
    if (!row.at("node").empty()) p.node = std::stoi(row.at("node"));
    std::stringstream gpus(row.at("gpus"));
    for (std::string g; std::getline(gpus, g, ';');) p.gpus.push_back(std::stoi(g));
    r.pods.push_back(std::move(p));
  }
  for (const auto& row : read_csv(out / "timeseries.csv")) {
    r.samples.emplace_back(std::stod(row.at("time_s")), std::stod(row.at("fragmentation_ratio")));
  }
  const json summary = json::parse(read_file(out / "summary.json"));
  r.fragmentation_ratio = summary["policies"][0]["fragmentation_ratio"].get<double>();
  return r;
}

// --- the cluster's side ---

// Passes the watch to the extender's state and remembers the newest pod version delivered, so
// that the replay waits until the extender has seen its own last write.
class TrackingSink final : public k8s::ClusterWatchSink {
 public:
  explicit TrackingSink(k8s::ClusterWatchSink& inner) : inner_(inner) {}
  void list_started(k8s::WatchKind kind) override { inner_.list_started(kind); }
  void apply(k8s::WatchKind kind, k8s::WatchEvent event, const json& object) override {
    inner_.apply(kind, event, object);
    if (kind != k8s::WatchKind::Pod) return;
    const uint64_t rv = std::stoull(object["metadata"]["resourceVersion"].get<std::string>());
    std::lock_guard lock(mutex_);
    pod_rv_ = std::max(pod_rv_, rv);
    cv_.notify_all();
  }
  void synced(k8s::WatchKind kind) override {
    inner_.synced(kind);
    std::lock_guard lock(mutex_);
    ++syncs_;
    cv_.notify_all();
  }
  bool wait_pod_version(uint64_t rv) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return pod_rv_ >= rv; });
  }
  bool wait_synced(int n) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return syncs_ >= n; });
  }

 private:
  k8s::ClusterWatchSink& inner_;
  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t pod_rv_ = 0;
  int syncs_ = 0;
};

// The extender's own HTTP server (what `slicelab serve extender` runs), in process, on an
// ephemeral port of 127.0.0.1 under /slicelab.
class ExtenderHttp {
 public:
  ExtenderHttp(k8s::ExtenderState& state, k8s::ClusterWriter& writer)
      : server_(state, writer, options()), port_(server_.bind("127.0.0.1", 0)) {
    thread_ = std::thread([this] { server_.listen(); });
  }
  ~ExtenderHttp() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/slicelab"; }

 private:
  static k8s::ExtenderServerOptions options() {
    k8s::ExtenderServerOptions o;
    o.url_prefix = "/slicelab";
    return o;
  }
  k8s::ExtenderServer server_;
  int port_;
  std::thread thread_;
};

// Everything one replay needs: the fake API server with the scenario's nodes, the extender's
// state kept by a ClusterConnection's watches, the extender's HTTP face.
struct Rig {
  Rig(const Scenario& scenario, const PolicySpec& policy, k8s::ExtenderOptions options)
      : state(scenario, policy, derive_seed(scenario.seed, policy.name), options),
        tracking(state),
        link(config_of(api), tracking),
        writer(link.writer()),
        http(state, link.writer()) {
    for (json& n : scenario_nodes(scenario)) nodes.push_back(as_informer_object(api.add_node(n)));
    link.start();
    EXPECT_TRUE(tracking.wait_synced(2));
    EXPECT_TRUE(state.ready());
  }
  static k8s::ApiConfig config_of(const FakeApiServer& server) {
    k8s::ApiConfig c;
    c.server = server.url();
    return c;
  }
  FakeApiServer api;
  k8s::ExtenderState state;
  TrackingSink tracking;
  k8s::ClusterConnection link;
  k8s::ClusterWriter& writer;
  ExtenderHttp http;
  std::vector<json> nodes;
};

// The replay's event order at one instant: finishes free capacity first, then arrivals, then
// starts (in start, arrival, pod order).
struct ReplayEvent {
  double t;
  int kind;  // 0 finish, 1 arrival, 2 start
  size_t pod;
};

std::vector<ReplayEvent> replay_events(const SimRun& run) {
  std::vector<ReplayEvent> ev;
  for (size_t i = 0; i < run.pods.size(); ++i) {
    const SimPod& p = run.pods[i];
    ev.push_back({p.arrival, 1, i});
    if (p.start >= 0) ev.push_back({p.start, 2, i});
    if (p.finish >= 0) ev.push_back({p.finish, 0, i});
  }
  std::stable_sort(ev.begin(), ev.end(), [&](const ReplayEvent& a, const ReplayEvent& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.kind != b.kind) return a.kind < b.kind;
    return run.pods[a.pod].arrival < run.pods[b.pod].arrival;
  });
  return ev;
}

std::vector<std::string> node_names(const Scenario& s) {
  std::vector<std::string> names;
  for (const json& n : scenario_nodes(s)) names.push_back(n["metadata"]["name"]);
  return names;
}

const PolicySpec& policy_named(const Scenario& s, const std::string& name) {
  for (const PolicySpec& p : s.policies) {
    if (p.name == name) return p;
  }
  throw std::runtime_error("no policy " + name);
}

std::vector<int> annotated_gpus(const json& pod) {
  std::vector<int> gpus;
  const json& meta = pod["metadata"];
  if (!meta.contains("annotations") ||
      !meta["annotations"].contains(std::string(k8s::kGpuAssignmentAnnotation))) {
    return gpus;
  }
  std::string error;
  const auto a = k8s::parse_gpu_assignment(
      meta["annotations"][std::string(k8s::kGpuAssignmentAnnotation)].get<std::string>(), error);
  if (a) {
    for (const k8s::AssignedGpu& g : a->gpus) gpus.push_back(g.index);
  }
  return gpus;
}

std::string show(const std::vector<int>& v) {
  std::string s;
  for (const int x : v) s += (s.empty() ? "" : ";") + std::to_string(x);
  return s;
}

class ExtenderReplayTest : public TempFilesTest,
                           public ::testing::WithParamInterface<std::pair<const char*, bool>> {};

TEST_P(ExtenderReplayTest, EveryDecisionEqualsTheSimulators) {
  const std::string policy = GetParam().first;
  const Scenario scenario = load_scenario(kScenario);
  const SimRun sim = simulate(policy, dir_);
  ASSERT_EQ(sim.pods.size(), scenario.pods.size());
  const std::vector<std::string> names = node_names(scenario);
  Rig rig(scenario, policy_named(scenario, policy), {});
  ExtenderStanza stanza;
  stanza.url_prefix = rig.http.url();
  stanza.node_cache_capable = GetParam().second;
  stanza.managed_resources = {"nvidia.com/gpu"};
  KubeSchedulerDriver driver(stanza, scenario.seed);

  uint64_t written = rig.api.resource_version();
  size_t decisions = 0, mismatches = 0;
  std::string first_mismatches;
  for (const ReplayEvent& e : replay_events(sim)) {
    const SimPod& p = sim.pods[e.pod];
    const std::string name(scenario.pods[e.pod].name.view());
    if (e.kind == 1) {
      rig.api.add_pod(scenario_pod(scenario.pods[e.pod]));
    } else if (e.kind == 0) {
      rig.api.delete_pod("default", name);
    } else {
      ASSERT_TRUE(rig.tracking.wait_pod_version(written));
      const CycleResult r = driver.schedule(rig.api.pod("default", name), rig.nodes);
      const std::vector<int> gpus = annotated_gpus(rig.api.pod("default", name));
      const std::string want = names.at(static_cast<size_t>(p.node));
      ++decisions;
      if (r.node != want || gpus != p.gpus || !r.error.empty()) {
        if (++mismatches <= 5) {
          first_mismatches += "  t=" + std::to_string(e.t) + " " + name + ": simulator " + want +
                              " [" + show(p.gpus) + "], extender " + r.node + " [" + show(gpus) +
                              "] " + r.error + "\n";
        }
      }
    }
    written = rig.api.resource_version();
  }
  std::printf("%s: %zu decisions replayed through the extender, %zu differ\n", policy.c_str(),
              decisions, mismatches);
  EXPECT_EQ(decisions, scenario.pods.size());
  EXPECT_EQ(mismatches, 0u) << first_mismatches;
}

INSTANTIATE_TEST_SUITE_P(Policies, ExtenderReplayTest,
                         ::testing::Values(std::make_pair("best-fit", true),
                                           std::make_pair("fgd", true),
                                           std::make_pair("hami-binpack", false)),
                         [](const auto& param_info) {
                           std::string n = param_info.param.first;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Shadow mode: the simulator's first-fit run is replayed (kube-scheduler binds where first-fit
// did, a device plugin records first-fit's GPUs) while the extender shadows FGD. The extender's
// fragmentation of the observed state must follow the simulator's first-fit run, and that of
// its counterfactual state the simulator's FGD run: at every sample of timeseries.csv, and
// time-weighted as summary.json reports it.
class ExtenderShadowTest : public TempFilesTest {};

struct FragPoint {
  double t;
  double actual, slicelab;  // fragmented GPUs after every event at t
};

// The value at sample time `s` of a step function given at event times (the last point at or
// before `s`); nullopt before the first point or at an event time (where the order of the
// sample and the events is the simulator's choice).
std::optional<FragPoint> at_sample(const std::vector<FragPoint>& points, double s) {
  std::optional<FragPoint> last;
  for (const FragPoint& p : points) {
    if (p.t == s) return std::nullopt;
    if (p.t > s) break;
    last = p;
  }
  return last;
}

TEST_F(ExtenderShadowTest, FragmentationDifferenceMatchesTheSimulatorsFirstFitAndFgd) {
  const Scenario scenario = load_scenario(kScenario);
  const SimRun ff = simulate("first-fit", dir_);
  const SimRun fgd = simulate("fgd", dir_);
  const std::vector<std::string> names = node_names(scenario);
  k8s::ExtenderOptions options;
  options.shadow = true;
  Rig rig(scenario, policy_named(scenario, "fgd"), options);
  // The shadow stanza: prioritize only, ignorable, no bind (kube-scheduler's DefaultBinder).
  ExtenderStanza stanza;
  stanza.url_prefix = rig.http.url();
  stanza.filter_verb = "";
  stanza.bind_verb = "";
  stanza.node_cache_capable = true;
  stanza.ignorable = true;
  KubeSchedulerDriver driver(stanza, scenario.seed, &rig.writer);
  const double total_gpus = static_cast<double>(scenario.cluster.gpu_count());

  std::vector<FragPoint> points;
  const std::vector<ReplayEvent> events = replay_events(ff);
  size_t bound = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const ReplayEvent& e = events[i];
    const SimPod& p = ff.pods[e.pod];
    const std::string name(scenario.pods[e.pod].name.view());
    if (e.kind == 1) {
      rig.api.add_pod(scenario_pod(scenario.pods[e.pod]));
    } else if (e.kind == 0) {
      rig.api.delete_pod("default", name);
    } else {
      ASSERT_TRUE(rig.tracking.wait_pod_version(rig.api.resource_version()));
      k8s::GpuAssignment a;
      a.node = names.at(static_cast<size_t>(p.node));
      a.policy = "first-fit";
      a.sharing = "gpu-share";
      for (const int g : p.gpus) a.gpus.push_back(k8s::AssignedGpu{g, "", 0, 100});
      ASSERT_TRUE(rig.writer
                      .patch_pod_annotations(
                          "default", name,
                          {{std::string(k8s::kGpuAssignmentAnnotation), k8s::to_annotation(a)}})
                      .ok());
      const CycleResult r = driver.schedule(rig.api.pod("default", name), rig.nodes, a.node);
      EXPECT_TRUE(r.bound) << name << ": " << r.error;
      bound += r.bound ? 1 : 0;
    }
    if (i + 1 == events.size() || events[i + 1].t != e.t) {
      ASSERT_TRUE(rig.tracking.wait_pod_version(rig.api.resource_version()));
      const k8s::ExtenderSnapshot snap = rig.state.snapshot();
      ASSERT_TRUE(snap.shadow.has_value());
      points.push_back(
          {e.t, snap.shadow->fragmented_gpus_actual, snap.shadow->fragmented_gpus_slicelab});
    }
  }
  EXPECT_EQ(bound, scenario.pods.size());
  const k8s::ShadowFigures final_figures = *rig.state.snapshot().shadow;

  // Time-weighted over the run's window, as the simulator integrates it.
  double frag_actual = 0, frag_slicelab = 0;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const double dt = points[i + 1].t - points[i].t;
    frag_actual += points[i].actual * dt;
    frag_slicelab += points[i].slicelab * dt;
  }
  const double window = points.back().t - points.front().t;
  const double ratio_actual = frag_actual / (total_gpus * window);
  const double ratio_slicelab = frag_slicelab / (total_gpus * window);

  std::printf(
      "\nshadow replay: first-fit decisions, FGD shadowed (%zu pods; FGD chose the same node "
      "for %llu, another for %llu)\n",
      scenario.pods.size(), static_cast<unsigned long long>(final_figures.same_node),
      static_cast<unsigned long long>(final_figures.different_node));
  std::printf("%10s | %14s %14s | %14s %14s | %12s %12s\n", "time_s", "sim first-fit",
              "ext observed", "sim FGD", "ext shadow", "sim diff", "ext diff");
  size_t compared = 0, differ = 0;
  for (size_t k = 0; k < ff.samples.size() && k < fgd.samples.size(); ++k) {
    const double s = ff.samples[k].first;
    const std::optional<FragPoint> p = at_sample(points, s);
    if (!p) continue;
    const double a = p->actual / total_gpus, b = p->slicelab / total_gpus;
    const double sa = ff.samples[k].second, sb = fgd.samples[k].second;
    ++compared;
    if (std::abs(a - sa) > 1e-6 || std::abs(b - sb) > 1e-6) ++differ;
    if (k % 6 == 0 || std::abs(a - sa) > 1e-6 || std::abs(b - sb) > 1e-6) {
      std::printf("%10.0f | %14.6f %14.6f | %14.6f %14.6f | %12.6f %12.6f\n", s, sa, a, sb, b,
                  sa - sb, a - b);
    }
  }
  std::printf("%10s | %14.6f %14.6f | %14.6f %14.6f | %12.6f %12.6f\n", "weighted",
              ff.fragmentation_ratio, ratio_actual, fgd.fragmentation_ratio, ratio_slicelab,
              ff.fragmentation_ratio - fgd.fragmentation_ratio, ratio_actual - ratio_slicelab);
  std::printf(
      "(fragmentation ratio: fragmented GPU capacity / all of it; %zu samples compared, "
      "%zu differ)\n\n",
      compared, differ);
  EXPECT_GT(compared, ff.samples.size() / 2);
  EXPECT_EQ(differ, 0u);
  EXPECT_NEAR(ratio_actual, ff.fragmentation_ratio, 1e-6);
  EXPECT_NEAR(ratio_slicelab, fgd.fragmentation_ratio, 1e-6);
  // The point of the exercise: FGD leaves less fragmented than first-fit, on both sides.
  EXPECT_LT(fgd.fragmentation_ratio, ff.fragmentation_ratio);
  EXPECT_LT(ratio_slicelab, ratio_actual);
  EXPECT_EQ(final_figures.pending_placeable, 0u);
}

// `slicelab serve extender` itself, pointed at the fake API server with --api-server: it lists
// and watches the cluster, answers the kube-scheduler stand-in and binds through the API
// server. Replayed up to the first finish (the binary gives no sign of when its watch has
// caught up with a deletion), every decision equals the simulator's.
class ExtenderBinaryTest : public TempFilesTest {};

TEST_F(ExtenderBinaryTest, ServeExtenderAgainstTheApiServerDecidesAsTheSimulator) {
  const Scenario scenario = load_scenario(kScenario);
  const SimRun sim = simulate("best-fit", dir_);
  const std::vector<std::string> names = node_names(scenario);
  FakeApiServer api;
  std::vector<json> nodes;
  for (json& n : scenario_nodes(scenario)) nodes.push_back(as_informer_object(api.add_node(n)));

  // `echo $$; exec` gives the shell's pid, which the binary keeps.
  const std::string command = "echo $$; exec " + shell_quote(SLICELAB_BINARY) +
                              " serve extender --scenario " + shell_quote(kScenario) +
                              " -p best-fit --listen 127.0.0.1:0 --url-prefix /slicelab "
                              "--api-server " +
                              api.url() + " 2>&1";
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
  httplib::Client probe("127.0.0.1", port);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    const auto r = probe.Get("/readyz");
    ready = r && r->status == 200;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(ready);

  ExtenderStanza stanza;
  stanza.url_prefix = "http://127.0.0.1:" + std::to_string(port) + "/slicelab";
  stanza.node_cache_capable = true;
  KubeSchedulerDriver driver(stanza, scenario.seed);
  size_t decisions = 0, mismatches = 0;
  std::string first;
  for (const ReplayEvent& e : replay_events(sim)) {
    if (e.kind == 0) break;
    const SimPod& p = sim.pods[e.pod];
    const std::string name(scenario.pods[e.pod].name.view());
    if (e.kind == 1) {
      api.add_pod(scenario_pod(scenario.pods[e.pod]));
      continue;
    }
    const CycleResult r = driver.schedule(api.pod("default", name), nodes);
    const std::vector<int> gpus = annotated_gpus(api.pod("default", name));
    const std::string want = names.at(static_cast<size_t>(p.node));
    ++decisions;
    if (r.node != want || gpus != p.gpus || !r.error.empty() ||
        api.pod("default", name)["spec"].value("nodeName", "") != want) {
      if (++mismatches <= 3) {
        first += name + ": simulator " + want + " [" + show(p.gpus) + "], extender " + r.node +
                 " [" + show(gpus) + "] " + r.error + "\n";
      }
    }
  }
  ::kill(pid, SIGTERM);
  while (std::fgets(line, sizeof line, out) != nullptr) seen += line;
  const int status = ::pclose(out);
  std::printf("serve extender: %zu decisions before the first finish, %zu differ\n", decisions,
              mismatches);
  EXPECT_GE(decisions, 5u);
  EXPECT_EQ(mismatches, 0u) << first << seen;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << seen;
  // It listed and watched both kinds.
  EXPECT_GE(api.count("GET", "/api/v1/nodes"), 2u);
  EXPECT_GE(api.count("GET", "/api/v1/pods"), 2u);
}

// `slicelab serve extender --api-server URL` started in the background: its pid, its port, and
// its output so far.
struct ServedExtender {
  FILE* out = nullptr;
  int pid = -1;
  int port = -1;
  std::string seen;
};

ServedExtender serve_extender(const std::string& api_url) {
  ServedExtender s;
  // `echo $$; exec` gives the shell's pid, which the binary keeps.
  const std::string command = "echo $$; exec " + shell_quote(SLICELAB_BINARY) +
                              " serve extender --scenario " + shell_quote(kScenario) +
                              " -p best-fit --listen 127.0.0.1:0 --api-server " + api_url + " 2>&1";
  s.out = ::popen(command.c_str(), "r");
  if (s.out == nullptr) return s;
  char line[4096];
  while (s.port < 0 && std::fgets(line, sizeof line, s.out) != nullptr) {
    s.seen += line;
    const std::string l = line;
    if (s.pid < 0) {
      s.pid = std::stoi(l);
    } else if (const size_t at = l.find("listening on 127.0.0.1:"); at != std::string::npos) {
      s.port = std::stoi(l.substr(at + 23));
    }
  }
  return s;
}

// SIGTERM ends the extender within 2 s even while the API server trickles its LIST a byte at a
// time (the watch's LIST used to hold the exit until its 60 s read timeout, 14-20 s and more).
TEST_F(ExtenderBinaryTest, ExitsPromptlyOnSigtermWhileItsListTrickles) {
  FakeApiServer api;
  const Scenario scenario = load_scenario(kScenario);
  for (json& n : scenario_nodes(scenario)) api.add_node(n);
  api.trickle_lists(100);
  ServedExtender ext = serve_extender(api.url());
  ASSERT_GT(ext.port, 0) << ext.seen;
  // Both LISTs are in flight, a few bytes in.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((api.count("GET", "/api/v1/nodes") == 0 || api.count("GET", "/api/v1/pods") == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(ext.pid, SIGTERM);
  char line[4096];
  while (std::fgets(line, sizeof line, ext.out) != nullptr) ext.seen += line;
  const int status = ::pclose(ext.out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("serve extender: exited %.3f s after SIGTERM with both LISTs trickling\n", seconds);
  EXPECT_LT(seconds, 2.0) << ext.seen;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ext.seen;
}

// A body nested 100,000 levels deep inside the Pod (200 KB), sent to /filter and /prioritize,
// is answered 400 and the extender goes on serving (it used to end with SIGSEGV); so is a Pod
// or Node from the API server as deep, in a LIST or a watch event: skipped and counted.
TEST_F(ExtenderBinaryTest, DeepBodiesAndObjectsAreRefusedAndCounted) {
  FakeApiServer api;
  const Scenario scenario = load_scenario(kScenario);
  for (json& n : scenario_nodes(scenario)) api.add_node(n);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  api.inject_list_item("pod",
                       R"({"metadata":{"name":"deep","namespace":"x"},"spec":)" + deep + "}");
  ServedExtender ext = serve_extender(api.url());
  ASSERT_GT(ext.port, 0) << ext.seen;
  httplib::Client client("127.0.0.1", ext.port);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    const auto r = client.Get("/readyz");
    ready = r && r->status == 200;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(ready);
  ASSERT_TRUE(api.wait_for_watches(2));
  api.inject_line(R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"deeper"},"spec":)" +
                  deep + "}}");
  const std::string body =
      R"({"NodeNames":["a"],"Pod":{"metadata":{"name":"p","namespace":"default"},"spec":)" + deep +
      "}}";
  for (const char* verb : {"/filter", "/prioritize"}) {
    const auto r = client.Post(verb, body, "application/json");
    ASSERT_TRUE(r) << verb;
    EXPECT_EQ(r->status, 400) << verb;
    EXPECT_NE(r->body.find("nested deeper than 64 levels"), std::string::npos) << r->body;
  }
  // Still serving; the watches skipped the list item and the event (which the fake writes to
  // both watches, nodes' and pods'), and counted each: 3.
  double rejected = -1;
  for (int i = 0; i < 200 && rejected < 3; ++i) {
    const auto m = client.Get("/metrics");
    ASSERT_TRUE(m);
    const std::string key = "slicelab_extender_watch_objects_rejected_total ";
    const size_t at = m->body.find("\n" + key);
    if (at != std::string::npos) rejected = std::stod(m->body.substr(at + 1 + key.size()));
    if (rejected < 3) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_EQ(rejected, 3);
  ::kill(ext.pid, SIGTERM);
  char line[4096];
  while (std::fgets(line, sizeof line, ext.out) != nullptr) ext.seen += line;
  const int status = ::pclose(ext.out);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ext.seen;
}

}  // namespace
}  // namespace slicelab::testing
