// The kube-scheduler stand-in against a stub extender and the fake API server: the request
// bodies kube-scheduler sends, how it adds extender scores, breaks ties, skips prioritize for a
// single feasible node, honours managedResources and ignorable, and binds.
#include "tests/support/kube_scheduler_driver.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_cluster_writer.h"
#include "tests/support/fake_api_server.h"

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

}  // namespace
}  // namespace slicelab::testing
