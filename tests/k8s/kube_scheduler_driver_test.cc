// The kube-scheduler stand-in against a stub extender and the fake API server: the request
// bodies kube-scheduler sends, how it adds extender scores, breaks ties, skips prioritize for a
// single feasible node, honours managedResources and ignorable, and binds. Then slicelab's own
// extender state behind the same HTTP verbs: kube-scheduler's sequence binds, and forged binds
// (a Running pod, a pod never filtered, a wrong UID, a node filter did not pass, a pod bound
// meanwhile) are refused with nothing patched or bound, as the API server's request log shows.
#include "tests/support/kube_scheduler_driver.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_cluster_writer.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/extender_wire.h"
#include "sim/scenario/scenario.h"
#include "tests/k8s/extender_fixtures.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/temp_files.h"

namespace slicelab::testing {
namespace {

using nlohmann::json;

// An extender with fixed answers: filter drops "n2", prioritize scores n0 3, n1 7, n3 7, and
// bind posts the Binding to the fake API server.
class StubExtender {
 public:
  explicit StubExtender(FakeApiServer& api) : client_(config(api)), writer_(client_) {
    server_.Post("/ext/filter", [this](const httplib::Request& req, httplib::Response& res) {
      note("filter");
      if (fail_filter_) {
        res.status = 500;
        return;
      }
      const json args = json::parse(req.body);
      json out = {{"Nodes", nullptr},
                  {"NodeNames", nullptr},
                  {"FailedNodes", json::object()},
                  {"FailedAndUnresolvableNodes", json::object()},
                  {"Error", ""}};
      if (args["NodeNames"].is_array()) {
        out["NodeNames"] = json::array();
        for (const json& n : args["NodeNames"]) {
          if (n == "n2") {
            out["FailedNodes"]["n2"] = "no GPU left";
          } else if (!only_n0_ || n == "n0") {
            out["NodeNames"].push_back(n);
          }
        }
      } else {
        out["Nodes"] = {{"metadata", json::object()}, {"items", json::array()}};
        for (const json& n : args["Nodes"]["items"]) {
          if (n["metadata"]["name"] == "n2") {
            out["FailedNodes"]["n2"] = "no GPU left";
          } else if (!only_n0_ || n["metadata"]["name"] == "n0") {
            out["Nodes"]["items"].push_back(n);
          }
        }
      }
      res.set_content(out.dump(), "application/json");
    });
    server_.Post("/ext/prioritize", [this](const httplib::Request&, httplib::Response& res) {
      note("prioritize");
      res.set_content(R"([{"Host":"n0","Score":3},{"Host":"n1","Score":7},)"
                      R"({"Host":"n3","Score":7},{"Host":"elsewhere","Score":10}])",
                      "application/json");
    });
    server_.Post("/ext/bind", [this](const httplib::Request& req, httplib::Response& res) {
      note("bind");
      const json a = json::parse(req.body);
      const k8s::WriteResult w =
          writer_.bind_pod(a["PodNamespace"], a["PodName"], a["PodUID"], a["Node"]);
      res.set_content(json{{"Error", w.error}}.dump(), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StubExtender() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/ext/"; }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::atomic<bool> fail_filter_{false};
  std::atomic<bool> only_n0_{false};

 private:
  static k8s::ApiConfig config(const FakeApiServer& api) {
    k8s::ApiConfig c;
    c.server = api.url();
    return c;
  }
  void note(const std::string& verb) {
    std::lock_guard lock(mutex_);
    calls_.push_back(verb);
  }
  std::mutex mutex_;  // the server's threads write calls_, the test reads it
  std::vector<std::string> calls_;
  k8s::ApiClient client_;
  k8s::ApiClusterWriter writer_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

ExtenderStanza stanza_for(const std::string& url) {
  ExtenderStanza s;
  s.url_prefix = url;
  return s;
}

json gpu_pod(const std::string& name) {
  return {
      {"metadata", {{"name", name}, {"namespace", "ml"}}},
      {"spec",
       {{"containers", json::array({{{"name", "main"},
                                     {"image", "cuda"},
                                     {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}}};
}

std::vector<json> four_nodes(FakeApiServer& api) {
  std::vector<json> nodes;
  for (int i = 0; i < 4; ++i) {
    nodes.push_back(api.add_node({{"metadata", {{"name", "n" + std::to_string(i)}}},
                                  {"status", {{"allocatable", {{"nvidia.com/gpu", "8"}}}}}}));
  }
  return nodes;
}

TEST(KubeSchedulerDriverTest, ScoresAreWeightedAndScaledAndTheExtenderBinds) {
  FakeApiServer api;
  StubExtender ext(api);
  const std::vector<json> nodes = four_nodes(api);
  const json pod = api.add_pod(gpu_pod("a"));
  ExtenderStanza stanza = stanza_for(ext.url());
  stanza.weight = 2;
  stanza.node_cache_capable = true;
  KubeSchedulerDriver driver(stanza, 1);
  const CycleResult r = driver.schedule(pod, nodes);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.feasible, (std::vector<std::string>{"n0", "n1", "n3"}));
  EXPECT_EQ(r.failed.at("n2"), "no GPU left");
  // score x weight x (MaxNodeScore / MaxExtenderPriority): 7 x 2 x 10; a host not in the list
  // ("elsewhere") adds nothing.
  EXPECT_EQ(r.totals, (std::map<std::string, int64_t>{{"n0", 60}, {"n1", 140}, {"n3", 140}}));
  EXPECT_EQ(r.tied_at_top, 2);
  EXPECT_TRUE(r.node == "n1" || r.node == "n3") << r.node;
  EXPECT_TRUE(r.bound);
  EXPECT_EQ(api.pod("ml", "a")["spec"]["nodeName"], r.node);
  EXPECT_EQ(ext.calls(), (std::vector<std::string>{"filter", "prioritize", "bind"}));
  // The bodies as Go marshals them: Pod without TypeMeta, Nodes null next to NodeNames.
  const json filter = json::parse(driver.last_bodies().at("filter"));
  EXPECT_TRUE(filter["Nodes"].is_null());
  EXPECT_EQ(filter["NodeNames"], json({"n0", "n1", "n2", "n3"}));
  EXPECT_FALSE(filter["Pod"].contains("kind"));
  EXPECT_EQ(filter["Pod"]["metadata"]["uid"], pod["metadata"]["uid"]);
  const json prioritize = json::parse(driver.last_bodies().at("prioritize"));
  EXPECT_EQ(prioritize["NodeNames"], json({"n0", "n1", "n3"}));
  EXPECT_EQ(json::parse(driver.last_bodies().at("bind")), json({{"PodName", "a"},
                                                                {"PodNamespace", "ml"},
                                                                {"PodUID", pod["metadata"]["uid"]},
                                                                {"Node", r.node}}));
}

TEST(KubeSchedulerDriverTest, FullNodeListsWhenNotNodeCacheCapable) {
  FakeApiServer api;
  StubExtender ext(api);
  const std::vector<json> nodes = four_nodes(api);
  const json pod = api.add_pod(gpu_pod("a"));
  KubeSchedulerDriver driver(stanza_for(ext.url()), 1);
  const CycleResult r = driver.schedule(pod, nodes, "", false);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.feasible, (std::vector<std::string>{"n0", "n1", "n3"}));
  const json filter = json::parse(driver.last_bodies().at("filter"));
  EXPECT_TRUE(filter["NodeNames"].is_null());
  EXPECT_EQ(filter["Nodes"]["metadata"], json::object());
  ASSERT_EQ(filter["Nodes"]["items"].size(), 4u);
  EXPECT_FALSE(filter["Nodes"]["items"][0].contains("kind"));
  EXPECT_EQ(filter["Nodes"]["items"][0]["status"]["allocatable"]["nvidia.com/gpu"], "8");
  EXPECT_FALSE(r.bound);
}

TEST(KubeSchedulerDriverTest, TiesAreBrokenAtRandomBetweenTheTopHosts) {
  FakeApiServer api;
  StubExtender ext(api);
  const std::vector<json> nodes = four_nodes(api);
  const json pod = api.add_pod(gpu_pod("a"));
  std::set<std::string> chosen;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    KubeSchedulerDriver driver(stanza_for(ext.url()), seed);
    chosen.insert(driver.schedule(pod, nodes, "", false).node);
  }
  // n0 scores lower; each of n1 and n3 wins with probability 1/2, so 16 draws miss one of
  // them with probability 2^-15.
  EXPECT_EQ(chosen, (std::set<std::string>{"n1", "n3"}));
}

TEST(KubeSchedulerDriverTest, OneFeasibleNodeIsTakenWithoutPrioritize) {
  FakeApiServer api;
  StubExtender ext(api);
  ext.only_n0_ = true;
  const std::vector<json> nodes = four_nodes(api);
  KubeSchedulerDriver driver(stanza_for(ext.url()), 1);
  const CycleResult r = driver.schedule(api.add_pod(gpu_pod("a")), nodes);
  EXPECT_EQ(r.node, "n0");
  EXPECT_EQ(ext.calls(), (std::vector<std::string>{"filter", "bind"}));
}

TEST(KubeSchedulerDriverTest, ManagedResourcesIgnorableAndTheDefaultBinder) {
  FakeApiServer api;
  StubExtender ext(api);
  const std::vector<json> nodes = four_nodes(api);
  k8s::ApiConfig c;
  c.server = api.url();
  k8s::ApiClient client(c);
  k8s::ApiClusterWriter binder(client);
  // A CPU pod does not ask for the managed resource: the extender is not called and the
  // default binder binds (all scores 0, so any node).
  json cpu_pod = gpu_pod("cpu");
  cpu_pod["spec"]["containers"][0]["resources"] = {{"limits", {{"cpu", "1"}}}};
  ExtenderStanza managed = stanza_for(ext.url());
  managed.managed_resources = {"nvidia.com/gpu"};
  KubeSchedulerDriver driver(managed, 1, &binder);
  const CycleResult r = driver.schedule(api.add_pod(cpu_pod), nodes);
  EXPECT_TRUE(r.bound) << r.error;
  EXPECT_TRUE(ext.calls().empty());
  EXPECT_FALSE(api.pod("ml", "cpu")["spec"]["nodeName"].get<std::string>().empty());
  // A failing filter: an error unless the extender is ignorable.
  ext.fail_filter_ = true;
  const json pod = api.add_pod(gpu_pod("g"));
  KubeSchedulerDriver strict(stanza_for(ext.url()), 1);
  EXPECT_NE(strict.schedule(pod, nodes).error.find("failed filter with extender at URL"),
            std::string::npos);
  ExtenderStanza ignorable = stanza_for(ext.url());
  ignorable.ignorable = true;
  KubeSchedulerDriver lenient(ignorable, 1);
  const CycleResult kept = lenient.schedule(pod, nodes, "", false);
  EXPECT_EQ(kept.feasible.size(), 4u);
}

// --- slicelab's extender state behind the protocol's verbs ---

// The extender's verbs over HTTP as the server's handlers answer them (parse, decide, answer),
// on slicelab's ExtenderState, binding through the API server.
class StateExtender {
 public:
  StateExtender(k8s::ExtenderState& state, k8s::ClusterWriter& writer)
      : state_(state), writer_(writer) {
    server_.Post("/ext/filter", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_content(k8s::to_json(state_.filter(k8s::parse_extender_args(req.body))).dump(),
                      "application/json");
    });
    server_.Post("/ext/prioritize", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_content(k8s::to_json(state_.prioritize(k8s::parse_extender_args(req.body))).dump(),
                      "application/json");
    });
    server_.Post("/ext/bind", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_content(k8s::to_json(state_.bind(k8s::parse_binding_args(req.body), writer_)).dump(),
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StateExtender() {
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/ext/"; }
  // What anyone who reaches the port can send: a bind of their choosing.
  std::string post_bind(const std::string& name, const std::string& uid, const std::string& node) {
    httplib::Client c("127.0.0.1", port_);
    const json body = {
        {"PodName", name}, {"PodNamespace", "default"}, {"PodUID", uid}, {"Node", node}};
    const auto r = c.Post("/ext/bind", body.dump(), "application/json");
    if (!r) return "no answer";
    return json::parse(r->body).value("Error", "");
  }

 private:
  k8s::ExtenderState& state_;
  k8s::ClusterWriter& writer_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

class ExtenderBindTest : public TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    scenario_ = load_scenario(write("s.yaml", R"(name: bind
cluster:
  node_groups:
    - {name: l4, count: 2, gpu_model: L4, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 262144, node_names: [n0, n1]}
workload:
  pods:
    - {name: t, duration: 1h, cpu_milli: 1000, gpu_count: 1, gpu_milli: 1000}
policies:
  - {name: best-fit, placement: best-fit, sharing: gpu-share}
)"));
    state_ = std::make_unique<k8s::ExtenderState>(scenario_, scenario_.policies[0], 1,
                                                  k8s::ExtenderOptions{});
    // The extender's watch, fed by hand so that a test can hold it back (a watch that lags).
    state_->list_started(k8s::WatchKind::Node);
    for (const char* n : {"n0", "n1"}) {
      nodes_.push_back(as_informer_object(api_.add_node(node_object(n, "NVIDIA-L4", 4))));
      state_->apply(k8s::WatchKind::Node, k8s::WatchEvent::Added, nodes_.back());
    }
    state_->synced(k8s::WatchKind::Node);
    state_->list_started(k8s::WatchKind::Pod);
    state_->synced(k8s::WatchKind::Pod);
    k8s::ApiConfig c;
    c.server = api_.url();
    client_ = std::make_unique<k8s::ApiClient>(c);
    writer_ = std::make_unique<k8s::ApiClusterWriter>(*client_);
    ext_ = std::make_unique<StateExtender>(*state_, *writer_);
  }
  // A pod stored by the API server and seen on the extender's watch.
  json add_pod(const std::string& name, const std::string& node = "") {
    const json p = as_informer_object(api_.add_pod(pod_object(name, 1, 100, 0, node)));
    state_->apply(k8s::WatchKind::Pod, k8s::WatchEvent::Added, p);
    return p;
  }
  static std::string uid_of(const json& pod) { return pod["metadata"]["uid"]; }
  // kube-scheduler's filter for `pod` over both nodes: the node it passes.
  std::string filter(const json& pod) {
    ExtenderStanza stanza;
    stanza.url_prefix = ext_->url();
    stanza.node_cache_capable = true;
    KubeSchedulerDriver driver(stanza, 1);
    return driver.schedule(pod, nodes_, "", false).node;
  }
  // The writes a bind makes: annotation patches and Bindings.
  size_t writes() const {
    return api_.count("PATCH", "/api/v1/namespaces/") + api_.count("POST", "/api/v1/namespaces/");
  }
  void expect_refused(const std::string& error, const std::string& why, size_t writes_before) {
    EXPECT_NE(error.find("bind refused"), std::string::npos) << error;
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(writes(), writes_before) << "a refused bind wrote to the API server";
  }

  FakeApiServer api_;
  Scenario scenario_;
  std::unique_ptr<k8s::ExtenderState> state_;
  std::unique_ptr<k8s::ApiClient> client_;
  std::unique_ptr<k8s::ApiClusterWriter> writer_;
  std::unique_ptr<StateExtender> ext_;
  std::vector<json> nodes_;
};

TEST_F(ExtenderBindTest, KubeSchedulersSequenceBindsWithTheUidOnEveryWrite) {
  const json pod = add_pod("a");
  ExtenderStanza stanza;
  stanza.url_prefix = ext_->url();
  stanza.node_cache_capable = true;
  KubeSchedulerDriver driver(stanza, 1);
  const CycleResult r = driver.schedule(pod, nodes_);
  ASSERT_TRUE(r.bound) << r.error;
  const json stored = api_.pod("default", "a");
  EXPECT_EQ(stored["spec"]["nodeName"], r.node);
  EXPECT_TRUE(stored["metadata"]["annotations"].contains("slicelab.io/gpu-assignment"));
  // A fresh GET of the pod, then the patch and the Binding, both carrying its UID.
  std::vector<RecordedRequest> log;
  for (const RecordedRequest& q : api_.requests())
    if (q.path.rfind("/api/v1/namespaces/default/pods/a", 0) == 0) log.push_back(q);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].method, "GET");
  EXPECT_EQ(log[1].method, "PATCH");
  EXPECT_EQ(json::parse(log[1].body)["metadata"]["uid"], uid_of(pod));
  EXPECT_EQ(log[2].method, "POST");
  EXPECT_EQ(json::parse(log[2].body)["metadata"]["uid"], uid_of(pod));
}

TEST_F(ExtenderBindTest, ForgedBindsAreRefusedWithNothingWritten) {
  // A Running pod (the issue's case: its annotation was patched to GPU 7 of a 4-GPU node).
  const json running = add_pod("running", "n0");
  const json running_before = api_.pod("default", "running");
  size_t before = writes();
  expect_refused(ext_->post_bind("running", uid_of(running), "n1"), "no decision", before);
  EXPECT_EQ(api_.pod("default", "running"), running_before);
  // A pending pod this extender never filtered.
  const json never = add_pod("never");
  expect_refused(ext_->post_bind("never", uid_of(never), "n0"), "no decision", before);
  // Filtered, then bound under another UID.
  const json a = add_pod("a");
  ASSERT_FALSE(filter(a).empty());
  expect_refused(ext_->post_bind("a", "pod-uid-999", filter(a)), "is not the UID", before);
  // Filtered, then bound to a node filter did not pass.
  const std::string chosen = filter(a);
  const std::string other = chosen == "n0" ? "n1" : "n0";
  expect_refused(ext_->post_bind("a", uid_of(a), other), "did not pass node " + other, before);
  // Filtered while pending; bound by someone else since (the watch has not said so yet): the
  // fresh read refuses it.
  const json b = add_pod("b");
  ASSERT_FALSE(filter(b).empty());
  ASSERT_TRUE(writer_->bind_pod("default", "b", uid_of(b), "n1").ok());
  before = writes();
  expect_refused(ext_->post_bind("b", uid_of(b), filter(b)), "already bound to node n1", before);
  // Filtered while pending, Running since (and bound).
  const json c = add_pod("c");
  const std::string c_node = filter(c);
  ASSERT_FALSE(c_node.empty());
  api_.modify_pod("default", "c",
                  {{"spec", {{"nodeName", c_node}}}, {"status", {{"phase", "Running"}}}});
  expect_refused(ext_->post_bind("c", uid_of(c), c_node), "already bound", before);
  EXPECT_FALSE(api_.pod("default", "c")["metadata"].contains("annotations"));
  // Bound once legitimately, then again: the decision was used.
  const json d = add_pod("d");
  const std::string d_node = filter(d);
  EXPECT_EQ(ext_->post_bind("d", uid_of(d), d_node), "");
  before = writes();
  expect_refused(ext_->post_bind("d", uid_of(d), d_node), "no decision", before);
  EXPECT_EQ(state_->snapshot().binds_refused, 7u);
}

}  // namespace
}  // namespace slicelab::testing
