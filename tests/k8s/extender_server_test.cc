// The extender's HTTP server: the verbs on a real localhost socket, both request forms (NodeNames,
// NodeList), readiness, and hostile bodies (truncated, wrong types, 50 MB) answered, not fatal;
// who may call it: a token, TLS client certificates, the probe listener, loopback by default.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "backends/k8s/extender_server.h"
#include "sim/scenario/scenario.h"
#include "tests/k8s/extender_fixtures.h"
#include "tests/support/raw_tcp_client.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_certificates.h"

namespace slicelab::k8s {
namespace extender_server_test {

using nlohmann::json;
using slicelab::testing::FakeWriter;
using slicelab::testing::node_object;
using slicelab::testing::pod_object;
using slicelab::testing::RawConnection;

class ExtenderServerTest : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    slicelab::testing::ignore_sigpipe();
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
    ExtenderServerOptions options;
    options.url_prefix = "/ext";
    start(options);
  }
  // (Re)starts the server with `options` on a free port of 127.0.0.1.
  void start(const ExtenderServerOptions& options) {
    stop();
    server_ = std::make_unique<ExtenderServer>(*state_, writer_, options);
    port_ = server_->bind("127.0.0.1", 0);
    thread_ = std::thread([this] { server_->listen(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(30, 0);
    client_->set_write_timeout(30, 0);
  }
  void stop() {
    if (!server_) return;
    server_->stop();
    thread_.join();
    server_.reset();
  }
  void TearDown() override {
    stop();
    TempFilesTest::TearDown();
  }
  std::string bind_body() const {
    return json{
        {"PodName", "p"}, {"PodNamespace", "default"}, {"PodUID", "uid-p"}, {"Node", "l4-0"}}
        .dump();
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

TEST_F(ExtenderServerTest, UnauthenticatedBindIsRefusedAndNothingReachesTheState) {
  sync_nodes();
  ExtenderServerOptions options;
  options.url_prefix = "/ext";
  options.security.token =
      std::make_shared<BearerToken>(BearerToken::from_text("the-token", "test"));
  start(options);
  const json args = {{"Pod", pod_object("p", 1, 30, 4096)}, {"NodeNames", {"l4-0", "l4-1"}}};
  for (const char* verb : {"/ext/filter", "/ext/prioritize", "/ext/bind"}) {
    const std::string body = std::string(verb) == "/ext/bind" ? bind_body() : args.dump();
    auto r = client_->Post(verb, body, "application/json");
    ASSERT_TRUE(r) << verb;
    EXPECT_EQ(r->status, 401) << verb;
    r = client_->Post(verb, {{"Authorization", "Bearer not-the-token"}}, body, "application/json");
    ASSERT_TRUE(r) << verb;
    EXPECT_EQ(r->status, 401) << verb;
  }
  auto m = client_->Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 401);
  EXPECT_TRUE(writer_.bindings.empty());
  EXPECT_TRUE(writer_.annotations.empty());
  EXPECT_EQ(state_->snapshot().bind_requests, 0U);
  // Probes need no token.
  auto h = client_->Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  // With the token the same requests go through.
  const httplib::Headers auth = {{"Authorization", "Bearer the-token"}};
  auto f = client_->Post("/ext/filter", auth, args.dump(), "application/json");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->status, 200) << f->body;
  const std::string chosen = json::parse(f->body)["NodeNames"][0];
  const json bind = {
      {"PodName", "p"}, {"PodNamespace", "default"}, {"PodUID", "uid-p"}, {"Node", chosen}};
  auto b = client_->Post("/ext/bind", auth, bind.dump(), "application/json");
  ASSERT_TRUE(b);
  EXPECT_EQ(json::parse(b->body)["Error"], "");
  EXPECT_EQ(writer_.bindings.at("default/p"), chosen);
}

TEST_F(ExtenderServerTest, WithClientCertificatesOnlyKubeSchedulersCertificateBinds) {
  sync_nodes();
  slicelab::testing::TestCertificates certs;
  ASSERT_EQ(slicelab::testing::make_test_certificates(dir_, certs), "")
      << "the openssl command is needed (scripts/setup installs it)";
  ExtenderServerOptions options;
  options.url_prefix = "/ext";
  options.security.tls =
      ServerTlsFiles{certs.server_crt.string(), certs.server_key.string(), certs.ca_crt.string()};
  start(options);
  // Plain HTTP to the TLS port: no answer, nothing bound.
  RawConnection plain(port_);
  ASSERT_TRUE(plain.send(slicelab::testing::http_request("POST", "/ext/bind", bind_body())));
  EXPECT_EQ(slicelab::testing::http_status(plain.read(std::chrono::seconds(2), "\r\n\r\n")), 0);
  const auto post = [&](const std::filesystem::path& crt, const std::filesystem::path& key,
                        const std::string& path, const std::string& body) -> int {
    std::unique_ptr<httplib::SSLClient> c =
        crt.empty()
            ? std::make_unique<httplib::SSLClient>("127.0.0.1", port_)
            : std::make_unique<httplib::SSLClient>("127.0.0.1", port_, crt.string(), key.string());
    c->set_ca_cert_path(certs.ca_crt.string().c_str());
    c->enable_server_certificate_verification(true);
    const auto r = c->Post(path.c_str(), body, "application/json");
    return r ? r->status : 0;
  };
  EXPECT_EQ(post({}, {}, "/ext/bind", bind_body()), 0);
  EXPECT_EQ(post(certs.stranger_crt, certs.stranger_key, "/ext/bind", bind_body()), 0);
  EXPECT_TRUE(writer_.bindings.empty());
  EXPECT_EQ(state_->snapshot().bind_requests, 0U);
  // kube-scheduler's certificate (tlsConfig certFile/keyFile) is served.
  const json args = {{"Pod", pod_object("p", 1)}, {"NodeNames", {"l4-0", "l4-1"}}};
  EXPECT_EQ(post(certs.client_crt, certs.client_key, "/ext/filter", args.dump()), 200);
  EXPECT_EQ(post(certs.client_crt, certs.client_key, "/ext/bind", bind_body()), 200);
  EXPECT_EQ(state_->snapshot().bind_requests, 1U);
}

TEST_F(ExtenderServerTest, ProbeListenerServesOnlyProbesAndTokenMetrics) {
  ExtenderServerOptions options;
  options.url_prefix = "/ext";
  options.security.metrics_token =
      std::make_shared<BearerToken>(BearerToken::from_text("scrape", "test"));
  start(options);
  server_->set_metrics([] { return std::string("slicelab_up 1\n"); });
  const int probes = server_->bind_probes("127.0.0.1", 0);
  httplib::Client c("127.0.0.1", probes);
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  sync_nodes();
  r = c.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Post("/ext/bind", bind_body(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = c.Get("/metrics", {{"Authorization", "Bearer scrape"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "slicelab_up 1\n");
  EXPECT_EQ(state_->snapshot().bind_requests, 0U);
}

// GET /explain?pod=NAMESPACE/NAME (docs/explain.md): the decision log, off by default, behind
// the same token as the verbs; the explanation is slicelab explain's.
TEST_F(ExtenderServerTest, DecisionLogAnswersExplainBehindTheSameToken) {
  ExtenderServerOptions options;
  options.url_prefix = "/ext";
  options.security.token =
      std::make_shared<BearerToken>(BearerToken::from_text("the-token", "test"));
  const httplib::Headers auth = {{"Authorization", "Bearer the-token"}};
  start(options);
  // Off (the default): nothing is logged, and /explain says how to turn it on.
  auto r = client_->Get("/explain?pod=default/p", auth);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("--explain-log"), std::string::npos) << r->body;

  stop();
  ExtenderOptions logged;
  logged.explain_log = true;
  state_ = std::make_unique<ExtenderState>(scenario_, scenario_.policies[0], 3, logged);
  start(options);
  sync_nodes();
  const json args = {{"Pod", pod_object("p", 1, 30, 4096)}, {"NodeNames", {"l4-0", "l4-1"}}};
  auto f = client_->Post("/ext/filter", auth, args.dump(), "application/json");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->status, 200) << f->body;
  const std::string chosen = json::parse(f->body)["NodeNames"][0];
  r = client_->Get("/explain?pod=default/p");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  for (const char* query : {"/explain?pod=default/p", "/explain?pod=default%2Fp"}) {
    r = client_->Get(query, auth);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << query << ": " << r->body;
    const json doc = json::parse(r->body);
    EXPECT_EQ(doc["format"], "slicelab.explain-log/1");
    EXPECT_EQ(doc["pod"], "default/p");
    ASSERT_GE(doc["decisions"].size(), 1U);
    const json& e = doc["decisions"][0]["explanation"];
    EXPECT_EQ(e["format"], "slicelab.explain/1");
    EXPECT_EQ(e["policy"], "hami-binpack");
    EXPECT_EQ(e["attempts"][0]["node"], chosen);
    EXPECT_EQ(e["attempts"][0]["passes"][0]["feasible"], 2);
    EXPECT_EQ(e["attempts"][0]["passes"][0]["top"][0]["scores"][0]["scorer"], "hami-binpack");
  }
  r = client_->Get("/explain?pod=default/nobody", auth);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  for (const char* bad : {"/explain", "/explain?pod=p", "/explain?pod=a/b/c", "/explain?pod=%zz/p",
                          "/explain?pod=default/p&pod=default/q", "/explain?pod=a/%2"}) {
    r = client_->Get(bad, auth);
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
  }
  r = client_->Get("/explain?pod=default/" + std::string(400, 'x'), auth);  // over 63 + 1 + 253
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST(DecisionLog, KeepsTheLastDecisionsEachBounded) {
  DecisionLog log(10);
  PlacementExplanation e;
  e.node_names = {"n-0"};
  for (int i = 0; i < 15; ++i) log.add("ns/p" + std::to_string(i), e);
  EXPECT_EQ(log.size(), 10U);
  EXPECT_FALSE(log.lookup("ns/p4").has_value());
  ASSERT_TRUE(log.lookup("ns/p5").has_value());
  EXPECT_NE(log.lookup("ns/p14")->find(R"("decision":15)"), std::string::npos);
  // An explanation listing every node with long reasons is kept counted, under the bound.
  PlacementExplanation big;
  big.options = {5, 20};
  for (int n = 0; n < 20; ++n) big.node_names.push_back("node-" + std::to_string(n));
  AttemptExplanation a;
  PassExplanation p;
  for (NodeId n = 0; n < 20; ++n) {
    NodeVerdicts v;
    v.node = n;
    v.feasible = false;
    v.verdicts.push_back({"filter", false, false, "why", std::string(8000, 'd')});
    p.nodes.push_back(v);
  }
  p.rejections.push_back({"filter", "why", 20});
  a.passes.push_back(p);
  big.attempts.push_back(a);
  log.add("ns/big", big);
  const std::string kept = log.lookup("ns/big").value();
  EXPECT_LE(kept.size(), kMaxLoggedDecisionBytes + 200);
  EXPECT_EQ(kept.find("node_verdicts"), std::string::npos);
  EXPECT_NE(kept.find(R"("nodes":20)"), std::string::npos) << kept.substr(0, 400);
}

TEST_F(ExtenderServerTest, NonLoopbackWithoutAuthenticationIsRefused) {
  ExtenderServer server(*state_, writer_, ExtenderServerOptions{});
  EXPECT_THROW(server.bind("0.0.0.0", 0), InsecureListenError);
  EXPECT_THROW(server.bind("::", 0), InsecureListenError);
}

}  // namespace extender_server_test
}  // namespace slicelab::k8s
