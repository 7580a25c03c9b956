// GET /metrics of a running extender server (scenarios/kubernetes's nodes, kube-scheduler's
// calls over HTTP): the body parses with the test-side text-format parser and carries the
// request, latency, decision, cluster, HAMi GPU and shadow series with the values the calls
// imply.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backends/k8s/extender_server.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/metrics_endpoint.h"
#include "sim/scenario/scenario.h"
#include "tests/support/prometheus_text_parser.h"
#include "workloads/kube/kube_objects.h"

namespace slicelab::k8s {
namespace {

using slicelab::testing::parse_prometheus_text;
using slicelab::testing::PromExposition;
using Labels = std::map<std::string, std::string>;

const std::string kDir = std::string(SLICELAB_SOURCE_DIR) + "/scenarios/";

class AcceptingWriter : public ClusterWriter {
 public:
  WriteResult patch_pod_annotations(const std::string&, const std::string&,
                                    const std::map<std::string, std::string>&) override {
    return {};
  }
  WriteResult bind_pod(const std::string&, const std::string&, const std::string&,
                       const std::string&) override {
    return {};
  }
};

nlohmann::json pod_named(const std::string& name) {
  std::ifstream in(kDir + "kubernetes/pods.json");
  const nlohmann::json list = nlohmann::json::parse(in);
  for (const auto& p : list["items"]) {
    if (p["metadata"]["name"] == name) return p;
  }
  ADD_FAILURE() << "no pod " << name;
  return {};
}

std::string filter_body(const std::string& pod, const std::vector<std::string>& nodes) {
  return nlohmann::json{{"Pod", pod_named(pod)}, {"NodeNames", nodes}}.dump();
}

double sum_of(const PromExposition& e, const std::string& family) {
  double sum = 0;
  for (const auto& s : e.family(family)->samples) sum += s.value;
  return sum;
}

// One server over one state, listening on a free port of 127.0.0.1.
class MetricsEndpointTest : public ::testing::Test {
 protected:
  void start(bool shadow, bool with_pods,
             size_t max_exposition_bytes = MetricRegistry::kDefaultMaxExpositionBytes) {
    scenario_ = std::make_unique<Scenario>(load_scenario(kDir + "kubernetes.yaml"));
    ExtenderOptions options;
    options.shadow = shadow;
    state_ = std::make_unique<ExtenderState>(*scenario_, scenario_->policies.front(), 7, options);
    KubeObjects objects;
    read_kube_objects(kDir + "kubernetes/nodes.json", objects);
    if (with_pods) read_kube_objects(kDir + "kubernetes/pods.json", objects);
    state_->load(objects);
    ExtenderServerOptions server_options;
    server_options.limits.max_body_bytes = 64 * 1024;
    server_ = std::make_unique<ExtenderServer>(*state_, writer_, server_options);
    endpoint_ = std::make_unique<MetricsEndpoint>(*state_, max_exposition_bytes);
    server_->set_metrics([this] { return endpoint_->scrape(); });
    server_->set_request_metrics(endpoint_->metrics());
    port_ = server_->bind("127.0.0.1", 0);
    listener_ = std::thread([this] { server_->listen(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (listener_.joinable()) listener_.join();
  }
  int post(const std::string& path, const std::string& body) {
    const auto res = client_->Post(path, body, "application/json");
    return res ? res->status : -1;
  }
  PromExposition scrape() {
    const auto res = client_->Get("/metrics");
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    return parse_prometheus_text(res->body);
  }

  std::unique_ptr<Scenario> scenario_;
  std::unique_ptr<ExtenderState> state_;
  AcceptingWriter writer_;
  std::unique_ptr<ExtenderServer> server_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
  int port_ = 0;
  std::thread listener_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(MetricsEndpointTest, CountsRequestsDecisionsAndGpuAllocation) {
  start(/*shadow=*/false, /*with_pods=*/false);  // empty GPUs: every pod fits somewhere
  const std::vector<std::string> all = {"gpu-a100-0", "gpu-a100-1", "gpu-l4-0",
                                        "gpu-l4-1",   "gpu-l4-2",   "cpu-0"};
  EXPECT_EQ(post("/filter", filter_body("embed-batch-5-v9b8n", all)), 200);            // feasible
  EXPECT_EQ(post("/filter", filter_body("llama-13b-ft-0-w9e4r", {"gpu-l4-0"})), 200);  // 8 > 4
  EXPECT_EQ(post("/filter", "{\"Pod\": "), 400);                                       // truncated
  EXPECT_EQ(post("/filter", std::string(100 * 1024, ' ')), 413);  // over 64 KiB
  EXPECT_EQ(post("/nowhere", "{}"), 404);
  // kube-scheduler binds where filter pointed: the pod's node from the cached decision.
  const nlohmann::json pod = pod_named("embed-batch-5-v9b8n");
  const auto chosen =
      client_->Post("/filter", filter_body("embed-batch-5-v9b8n", all), "application/json");
  ASSERT_TRUE(chosen);
  const std::string node = nlohmann::json::parse(chosen->body)["NodeNames"][0];
  const nlohmann::json bind = {{"PodName", "embed-batch-5-v9b8n"},
                               {"PodNamespace", "team-vision"},
                               {"PodUID", pod["metadata"].value("uid", "")},
                               {"Node", node}};
  EXPECT_EQ(post("/bind", bind.dump()), 200);
  const auto bound = state_->bound("team-vision/embed-batch-5-v9b8n");
  ASSERT_TRUE(bound.has_value());
  ASSERT_EQ(bound->gpus.size(), 1u);

  const PromExposition e = scrape();
  const auto requests = [&](const char* verb, const char* code) {
    return e.value("slicelab_extender_requests_total", {{"verb", verb}, {"code", code}});
  };
  EXPECT_EQ(requests("filter", "200"), 3);
  EXPECT_EQ(requests("filter", "400"), 1);
  EXPECT_EQ(requests("filter", "413"), 1);
  EXPECT_EQ(requests("other", "404"), 1);
  EXPECT_EQ(requests("bind", "200"), 1);
  // The 413 never reached a handler: three timed filters and the bind.
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_count", {{"verb", "filter"}}), 4);
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_count", {{"verb", "bind"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", {{"result", "feasible"}}), 2);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", {{"result", "unschedulable"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", {{"result", "rejected"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", {{"result", "bound"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_ready"), 1);
  EXPECT_EQ(e.value("slicelab_extender_nodes"), 6);
  EXPECT_EQ(e.value("slicelab_extender_pods", {{"state", "bound"}}), 1);

  // HAMi's series: 2 x 8 A100-80GB and 3 x 4 L4; one whole L4 or A100 taken by the bound pod.
  EXPECT_EQ(e.family("hami_gpu_memory_limit_bytes")->samples.size(), 28u);
  EXPECT_EQ(sum_of(e, "hami_gpu_memory_limit_bytes"), (16 * 81920.0 + 12 * 23034.0) * 1048576);
  const bool on_l4 = node.rfind("gpu-l4-", 0) == 0;
  const double card = (on_l4 ? 23034.0 : 81920.0) * 1048576;
  const Labels gpu = {{"node", node},
                      {"device_uuid", ""},
                      {"device_index", std::to_string(bound->gpus[0])},
                      {"device_type", on_l4 ? "NVIDIA-L4" : "NVIDIA-A100-SXM4-80GB"},
                      {"zone", "vGPU"}};
  EXPECT_EQ(e.value("hami_gpu_shared_count", gpu), 1);
  EXPECT_EQ(sum_of(e, "hami_gpu_shared_count"), 1);
  EXPECT_EQ(e.value("hami_gpu_core_allocated_ratio", gpu), 100);
  EXPECT_EQ(e.value("hami_node_gpu_memory_allocated_ratio", gpu), 1);
  Labels with_cores = gpu;
  with_cores["device_cores"] = "100";
  EXPECT_EQ(e.value("hami_gpu_memory_allocated_bytes", with_cores), card);
  EXPECT_EQ(sum_of(e, "hami_gpu_memory_allocated_bytes"), card);
  // Outside shadow mode the shadow series exist and stay 0.
  EXPECT_EQ(e.value("slicelab_shadow_pods_total"), 0);
}

// Past its size limit the scrape leaves the per-GPU families out whole, keeps the cluster's, and
// says how many it left out.
TEST_F(MetricsEndpointTest, AScrapeStaysWithinItsLimit) {
  start(/*shadow=*/false, /*with_pods=*/false);
  const std::string whole = endpoint_->scrape();
  // The small families come first; HAMi's per-GPU ones (28 GPUs, ~5 KB each) after them.
  const size_t small = whole.find("# HELP hami_");
  ASSERT_NE(small, std::string::npos);
  const size_t limit = small + 2048;
  ASSERT_LT(limit, whole.size());
  MetricsEndpoint capped(*state_, limit);
  const std::string text = capped.scrape();
  EXPECT_LE(text.size(), limit);
  const PromExposition e = parse_prometheus_text(text);
  ASSERT_NE(e.family("slicelab_metrics_families_dropped"), nullptr);
  // The seven per-GPU families; the two per-container ones are empty (no pod holds a GPU) and
  // fit in what is left.
  EXPECT_EQ(e.value("slicelab_metrics_families_dropped"), 7);
  EXPECT_EQ(e.value("slicelab_extender_nodes"), 6);
  EXPECT_EQ(e.family("hami_gpu_memory_limit_bytes"), nullptr);
  // Room for about half of them: each family written is written whole, 28 GPUs or none.
  MetricsEndpoint half(*state_, small + (whole.size() - small) / 2);
  const PromExposition h = parse_prometheus_text(half.scrape());
  size_t written = 0;
  for (const char* f :
       {"hami_gpu_memory_limit_bytes", "hami_gpu_core_limit_ratio",
        "hami_gpu_memory_allocated_bytes", "hami_gpu_shared_count", "hami_gpu_core_allocated_ratio",
        "hami_node_gpu_overview", "hami_node_gpu_memory_allocated_ratio"}) {
    if (h.family(f) != nullptr) {
      EXPECT_EQ(h.family(f)->samples.size(), 28u) << f;
      ++written;
    }
  }
  EXPECT_GT(written, 0u);
  EXPECT_LT(written, 7u);
  for (const char* f : {"hami_vgpu_memory_allocated_bytes", "hami_vgpu_core_allocated_ratio"}) {
    if (h.family(f) != nullptr) ++written;
  }
  EXPECT_EQ(h.value("slicelab_metrics_families_dropped"), static_cast<double>(9 - written));
}

TEST_F(MetricsEndpointTest, ExportsShadowFigures) {
  start(/*shadow=*/true, /*with_pods=*/true);
  const std::vector<std::string> all = {"gpu-a100-0", "gpu-a100-1", "gpu-l4-0",
                                        "gpu-l4-1",   "gpu-l4-2",   "cpu-0"};
  EXPECT_EQ(post("/prioritize", filter_body("embed-batch-6-m7q6w", all)), 200);
  const PromExposition e = scrape();
  const auto figures = state_->snapshot().shadow;
  ASSERT_TRUE(figures.has_value());
  EXPECT_EQ(e.value("slicelab_shadow_fragmented_gpus", {{"side", "actual"}}),
            figures->fragmented_gpus_actual);
  EXPECT_EQ(e.value("slicelab_shadow_fragmented_gpus", {{"side", "slicelab"}}),
            figures->fragmented_gpus_slicelab);
  EXPECT_EQ(e.value("slicelab_shadow_placeable_pending_pods"),
            static_cast<double>(figures->pending_placeable));
  EXPECT_EQ(e.value("slicelab_shadow_pods_total"), static_cast<double>(figures->decisions));
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", {{"result", "prioritized"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_requests_total", {{"verb", "prioritize"}, {"code", "200"}}),
            1);
}

// The watch's health per kind and the decision log's totals are read at each scrape from their
// sources and become counter increments (a counter never goes back, whatever the source says);
// the process's resident memory is a gauge.
TEST_F(MetricsEndpointTest, ExportsWatchHealthDecisionLogAndMemory) {
  start(/*shadow=*/true, /*with_pods=*/false);
  WatchStats pods;
  pods.lists = 2;
  pods.expired = 1;
  pods.broken = 3;
  WatchStats nodes;
  nodes.lists = 1;
  nodes.failures = 4;
  DecisionLogFigures log{10, 2, 1};
  endpoint_->set_watch_source([&](WatchKind k) { return k == WatchKind::Pod ? pods : nodes; });
  endpoint_->set_decision_log_source([&] { return log; });
  PromExposition e = scrape();
  EXPECT_EQ(e.value("slicelab_extender_watch_lists_total", {{"kind", "pod"}}), 2);
  EXPECT_EQ(e.value("slicelab_extender_watch_expired_total", {{"kind", "pod"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_watch_broken_total", {{"kind", "pod"}}), 3);
  EXPECT_EQ(e.value("slicelab_extender_watch_failures_total", {{"kind", "node"}}), 4);
  EXPECT_EQ(e.value("slicelab_extender_watch_expired_total", {{"kind", "node"}}), 0);
  EXPECT_EQ(e.value("slicelab_shadow_record_lines_total"), 10);
  EXPECT_EQ(e.value("slicelab_shadow_record_dropped_total"), 2);
  EXPECT_EQ(e.value("slicelab_shadow_record_write_errors_total"), 1);
  EXPECT_GT(e.value("process_resident_memory_bytes").value_or(0), 1 << 20);
  pods.expired = 3;  // two more 410s
  log.lines = 15;
  e = scrape();
  EXPECT_EQ(e.value("slicelab_extender_watch_expired_total", {{"kind", "pod"}}), 3);
  EXPECT_EQ(e.value("slicelab_shadow_record_lines_total"), 15);
  EXPECT_EQ(e.value("slicelab_extender_watch_lists_total", {{"kind", "pod"}}), 2);
}

}  // namespace
}  // namespace slicelab::k8s
