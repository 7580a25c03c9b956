// The extender's HTTP server: the verbs on a real localhost socket, both request forms (NodeNames,
// NodeList), readiness, and hostile bodies (truncated, wrong types, 50 MB) answered, not fatal.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "backends/k8s/extender_server.h"
#include "sim/scenario/scenario.h"
#include "tests/k8s/extender_fixtures.h"
#include "tests/support/temp_files.h"

namespace slicelab::k8s {
namespace extender_server_test {

using nlohmann::json;
using slicelab::testing::FakeWriter;
using slicelab::testing::node_object;
using slicelab::testing::pod_object;

class ExtenderServerTest : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    scenario_ = load_scenario(write("s.yaml", R"(name: e
cluster:
  node_groups:
    - {name: l4, count: 2, gpu_model: L4, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 262144, node_names: [l4-0, l4-1]}
workload:
  pods:
    - {name: t, duration: 1h, cpu_milli: 1000, gpu_count: 1, gpu_milli: 1000}
policies:
  - {name: hami-binpack, placement: hami-binpack, sharing: {mode: hami}}
)"));
    state_ =
        std::make_unique<ExtenderState>(scenario_, scenario_.policies[0], 3, ExtenderOptions{});
    server_ = std::make_unique<ExtenderServer>(*state_, writer_, ExtenderServerOptions{"/ext"});
    port_ = server_->bind("127.0.0.1", 0);
    thread_ = std::thread([this] { server_->listen(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(30, 0);
    client_->set_write_timeout(30, 0);
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
    TempFilesTest::TearDown();
  }
  void sync_nodes() {
    state_->list_started(WatchKind::Node);
    state_->apply(WatchKind::Node, WatchEvent::Added, node_object("l4-0", "NVIDIA-L4", 4));
    state_->apply(WatchKind::Node, WatchEvent::Added, node_object("l4-1", "NVIDIA-L4", 4));
    state_->synced(WatchKind::Node);
    state_->synced(WatchKind::Pod);
  }
  Scenario scenario_;
  FakeWriter writer_;
  std::unique_ptr<ExtenderState> state_;
  std::unique_ptr<ExtenderServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ExtenderServerTest, ReadyOnceNodesAndPodsAreSynced) {
  auto r = client_->Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = client_->Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  sync_nodes();
  r = client_->Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  server_->set_metrics([] { return std::string("slicelab_up 1\n"); });
  r = client_->Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "slicelab_up 1\n");
}

TEST_F(ExtenderServerTest, FilterPrioritizeBindOverHttp) {
  sync_nodes();
  const json args = {{"Pod", pod_object("p", 1, 30, 4096)},
                     {"NodeNames", {"l4-0", "l4-1", "gone"}}};
  auto r = client_->Post("/ext/filter", args.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const ExtenderFilterResult f = parse_filter_result(r->body);
  ASSERT_TRUE(f.node_names.has_value());
  ASSERT_EQ(f.node_names->size(), 1U);
  EXPECT_TRUE(f.failed_nodes.contains("gone"));
  r = client_->Post("/ext/prioritize", args.dump(), "application/json");
  ASSERT_TRUE(r);
  const std::vector<HostPriority> p = parse_host_priorities(r->body);
  ASSERT_EQ(p.size(), 3U);
  const std::string chosen = f.node_names->front();
  for (const HostPriority& h : p)
    EXPECT_EQ(h.score, h.host == chosen ? kMaxExtenderPriority : h.score) << h.host;
  const json bind = {
      {"PodName", "p"}, {"PodNamespace", "default"}, {"PodUID", "uid-p"}, {"Node", chosen}};
  r = client_->Post("/ext/bind", bind.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["Error"], "");
  EXPECT_EQ(writer_.bindings.at("default/p"), chosen);
  const std::string annotation =
      writer_.annotations.at("default/p").at("slicelab.io/gpu-assignment");
  // HAMi: 4096 MiB and 30% of one GPU.
  EXPECT_NE(annotation.find("\"memoryMiB\":4096,\"cores\":30"), std::string::npos) << annotation;
  EXPECT_NE(annotation.find("\"sharing\":\"hami\""), std::string::npos) << annotation;
  // What /metrics reports: that GPU holds 4096 MiB and 30% of its cores, one tenant.
  const GpuAllocationSnapshot alloc = state_->gpu_allocation();
  size_t gpus = 0;
  int held = 0;
  for (const NodeGpuAllocation& node : alloc.nodes) {
    for (const GpuDeviceAllocation& g : node.gpus) {
      ++gpus;
      if (g.shared_count == 0) {
        EXPECT_EQ(g.memory_allocated_bytes, 0);
        continue;
      }
      ++held;
      EXPECT_EQ(node.node, chosen);
      EXPECT_EQ(g.shared_count, 1);
      EXPECT_EQ(g.memory_allocated_bytes, int64_t{4096} << 20);
      EXPECT_DOUBLE_EQ(g.cores_allocated, 30.0);
    }
  }
  EXPECT_EQ(gpus, 8U);
  EXPECT_EQ(held, 1);
  const ExtenderSnapshot snap = state_->snapshot();
  EXPECT_EQ(snap.bind_requests, 1U);
}

TEST_F(ExtenderServerTest, FullNodeListIsEchoedAndTeachesTheNodes) {
  // Not nodeCacheCapable, no watch: the nodes come in the body.
  const json args = {
      {"Pod", pod_object("p", 4)},
      {"Nodes",
       {{"items", {node_object("l4-0", "NVIDIA-L4", 4), node_object("l4-1", "NVIDIA-L4", 4)}}}}};
  auto r = client_->Post("/ext/filter", args.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = json::parse(r->body);
  ASSERT_TRUE(body["Nodes"].is_object());
  ASSERT_EQ(body["Nodes"]["items"].size(), 1U);
  EXPECT_EQ(body["Nodes"]["items"][0]["status"]["allocatable"]["nvidia.com/gpu"], "4");
  EXPECT_TRUE(body["NodeNames"].is_null());
}

TEST_F(ExtenderServerTest, HostileBodiesGet400NotACrash) {
  sync_nodes();
  const char* bad[] = {R"({"Pod":{"metadata":)", R"({"Pod":[],"NodeNames":["l4-0"]})",
                       R"({"Pod":{},"NodeNames":{"a":1}})", "null", "\xff\xfe"};
  for (const char* body : bad) {
    for (const char* verb : {"/ext/filter", "/ext/prioritize", "/ext/bind"}) {
      auto r = client_->Post(verb, body, "application/json");
      ASSERT_TRUE(r) << verb;
      EXPECT_EQ(r->status, 400) << verb << " " << body;
      EXPECT_FALSE(json::parse(r->body)["Error"].get<std::string>().empty());
    }
  }
  // A well-formed body whose pod slicelab cannot read: 200 with Error set.
  json pod = pod_object("p", 1);
  pod["spec"]["containers"] = "not a list";
  auto r = client_->Post("/ext/filter", json{{"Pod", pod}, {"NodeNames", {"l4-0"}}}.dump(),
                         "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(json::parse(r->body)["Error"].get<std::string>(), "");
  // Deep nesting is refused, not recursed into.
  std::string deep = R"({"Pod":{"metadata":{"name":"p"},"spec":)";
  for (int i = 0; i < 5000; ++i) deep += "[";
  r = client_->Post("/ext/filter", deep, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST(ExtenderServerStop, StopRightAfterStartingDoesNotHang) {
  // httplib ignores stop() before its accept loop runs; the server must not.
  const Scenario sc = load_scenario(SLICELAB_SOURCE_DIR "/scenarios/hami.yaml");
  ExtenderState state(sc, sc.policies[0], 1, ExtenderOptions{});
  FakeWriter writer;
  for (int i = 0; i < 20; ++i) {
    ExtenderServer server(state, writer, ExtenderServerOptions{});
    server.bind("127.0.0.1", 0);
    std::thread t([&] { server.listen(); });
    server.stop();
    t.join();
  }
}

TEST_F(ExtenderServerTest, FiftyMegabyteBodyIsRefusedAndTheServerLives) {
  const std::string huge(50u << 20, ' ');
  auto r = client_->Post("/ext/filter", huge, "application/json");
  // 413 when the client reads the answer before the server closes; a closed connection
  // otherwise. Either way the server goes on serving.
  if (r) {
    EXPECT_EQ(r->status, 413);
  }
  httplib::Client again("127.0.0.1", port_);
  auto h = again.Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
}

}  // namespace extender_server_test
}  // namespace slicelab::k8s
