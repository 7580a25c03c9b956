// The extender's metrics registry: number and label formatting, the exposition text, lock-free
// observation from many threads, and the extender's named series read back through the
// test-side parser of the text format.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "backends/k8s/extender_metrics.h"
#include "backends/k8s/prometheus_registry.h"
#include "tests/support/prometheus_text_parser.h"

namespace slicelab::k8s {
namespace {

using slicelab::testing::parse_prometheus_text;
using slicelab::testing::PromExposition;

TEST(PrometheusRegistry, FormatsNumbersAsGoClientDoes) {
  // strconv.FormatFloat(v, 'g', -1, 64): scientific below 1e-4 and from 1e6 on.
  EXPECT_EQ(format_prometheus_value(0), "0");
  EXPECT_EQ(format_prometheus_value(-0.0), "0");
  EXPECT_EQ(format_prometheus_value(1), "1");
  EXPECT_EQ(format_prometheus_value(-1), "-1");
  EXPECT_EQ(format_prometheus_value(2.5), "2.5");
  EXPECT_EQ(format_prometheus_value(0.005), "0.005");
  EXPECT_EQ(format_prometheus_value(0.0001), "0.0001");
  EXPECT_EQ(format_prometheus_value(0.00001), "1e-05");
  EXPECT_EQ(format_prometheus_value(0.00025), "0.00025");
  EXPECT_EQ(format_prometheus_value(100000), "100000");
  EXPECT_EQ(format_prometheus_value(999999), "999999");
  EXPECT_EQ(format_prometheus_value(1e6), "1e+06");
  EXPECT_EQ(format_prometheus_value(1048576), "1.048576e+06");
  EXPECT_EQ(format_prometheus_value(8589934592.0), "8.589934592e+09");
  EXPECT_EQ(format_prometheus_value(-123.25), "-123.25");
  EXPECT_EQ(format_prometheus_value(1.5e300), "1.5e+300");
  EXPECT_EQ(format_prometheus_value(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_prometheus_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_prometheus_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_prometheus_value(std::nan("")), "NaN");
}

TEST(PrometheusRegistry, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_help("a\\b\"c\nd"), "a\\\\b\"c\\nd");
}

TEST(PrometheusRegistry, WritesTheExpositionText) {
  MetricRegistry registry;
  registry.counter("jobs_total", "Jobs done,\nby kind", {"kind"}).with({"a\"b"}).add(3);
  registry.gauge("temperature", "Degrees").with({}).set(-2.5);
  auto& h = registry.histogram("latency_seconds", "Latency", {"verb"}, {0.001, 0.01});
  Histogram& filter = h.with({"filter"});
  filter.observe(0.001);  // le is inclusive: the first bucket
  filter.observe(0.002);
  filter.observe(3);
  EXPECT_EQ(registry.expose(),
            "# HELP jobs_total Jobs done,\\nby kind\n"
            "# TYPE jobs_total counter\n"
            "jobs_total{kind=\"a\\\"b\"} 3\n"
            "# HELP temperature Degrees\n"
            "# TYPE temperature gauge\n"
            "temperature -2.5\n"
            "# HELP latency_seconds Latency\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{verb=\"filter\",le=\"0.001\"} 1\n"
            "latency_seconds_bucket{verb=\"filter\",le=\"0.01\"} 2\n"
            "latency_seconds_bucket{verb=\"filter\",le=\"+Inf\"} 3\n"
            "latency_seconds_sum{verb=\"filter\"} 3.003\n"
            "latency_seconds_count{verb=\"filter\"} 3\n");
  const PromExposition e = parse_prometheus_text(registry.expose());
  EXPECT_EQ(e.value("jobs_total", {{"kind", "a\"b"}}), 3);
  EXPECT_EQ(*e.family("jobs_total")->help, "Jobs done,\nby kind");
}

TEST(PrometheusRegistry, RejectsProgrammingErrors) {
  MetricRegistry registry;
  registry.counter("a_total", "x", {"verb"});
  EXPECT_THROW(registry.gauge("a_total", "again"), std::invalid_argument);
  EXPECT_THROW(registry.gauge("1bad", "x"), std::invalid_argument);
  EXPECT_THROW(registry.gauge("ok", "x", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(registry.gauge("ok2", "x", {"a:b"}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h1", "x", {"le"}, {1}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h2", "x", {}, {2, 1}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h3", "x", {}, {1, std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
  auto& family = registry.counter("b_total", "x", {"verb", "code"});
  EXPECT_THROW(family.with({"filter"}), std::invalid_argument);
}

TEST(PrometheusRegistry, ReplaceAllDropsSeriesThatLeft) {
  MetricRegistry registry;
  auto& g = registry.gauge("per_node", "x", {"node"});
  g.replace_all({{{"n1"}, 1}, {{"n2"}, 2}});
  g.replace_all({{{"n2"}, 5}});
  const PromExposition e = parse_prometheus_text(registry.expose());
  EXPECT_FALSE(e.value("per_node", {{"node", "n1"}}).has_value());
  EXPECT_EQ(e.value("per_node", {{"node", "n2"}}), 5);
}

// Observers in several threads while another scrapes: every scrape parses (its +Inf bucket
// equals its _count), and the totals come out exact.
// A collected family's lines are written at the scrape, straight into the exposition; past the
// registry's limit a family is left out whole, the later ones are still written, and the
// exposition says how many were left out.
TEST(PrometheusRegistry, FamiliesPastTheLimitAreLeftOutWholeAndCounted) {
  const auto fill = [](MetricRegistry& registry) {
    registry.gauge("small_a", "A").with({}).set(1);
    registry.collected_gauge("big", "Big", {"i"}).set_collector([](SampleWriter& w) {
      for (int i = 0; i < 1000; ++i) {
        if (!w.add({std::to_string(i)}, i)) return;
      }
    });
    registry.counter("small_b", "B").with({}).add(2);
  };
  MetricRegistry roomy(size_t{1} << 20);
  fill(roomy);
  const std::string whole = roomy.expose();
  const PromExposition all = parse_prometheus_text(whole);
  EXPECT_EQ(all.family("big")->samples.size(), 1000u);
  EXPECT_EQ(all.value("big", {{"i", "999"}}), 999);
  EXPECT_EQ(all.family("slicelab_metrics_families_dropped"), nullptr);
  EXPECT_GT(whole.size(), 10000u);

  MetricRegistry tight(2048);
  fill(tight);
  const std::string cut = tight.expose();
  EXPECT_LE(cut.size(), 2048u);
  const PromExposition e = parse_prometheus_text(cut);
  EXPECT_EQ(e.family("big"), nullptr);
  EXPECT_EQ(cut.find("big{"), std::string::npos);
  EXPECT_EQ(e.value("small_a"), 1);
  EXPECT_EQ(e.value("small_b"), 2);
  EXPECT_EQ(e.value("slicelab_metrics_families_dropped"), 1);
  EXPECT_EQ(e.family("slicelab_metrics_families_dropped")->type, "gauge");
  // A collector that writes a wrong number of label values is a programming error.
  MetricRegistry wrong;
  wrong.collected_gauge("g", "G", {"a", "b"}).set_collector([](SampleWriter& w) {
    w.add({"only one"}, 1);
  });
  EXPECT_THROW(wrong.expose(), std::invalid_argument);
}

TEST(PrometheusRegistry, CountsExactlyUnderConcurrentObservers) {
  MetricRegistry registry;
  ExtenderMetrics metrics(registry);
#ifdef SLICELAB_SANITIZED
  constexpr int kPerThread = 2000;
#else
  constexpr int kPerThread = 20000;
#endif
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < kPerThread; ++i) {
        metrics.record_request(t % 2 == 0 ? "filter" : "prioritize", i % 10 == 0 ? 400 : 200,
                               0.0015);
        metrics.record_decision(DecisionResult::kFeasible);
      }
    });
  }
  std::string scrape_error;
  for (int scrape = 0; scrape < 20 && scrape_error.empty(); ++scrape) {
    try {
      parse_prometheus_text(registry.expose());
    } catch (const slicelab::testing::PrometheusTextError& err) {
      scrape_error = err.what();
    }
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(scrape_error, "");
  const PromExposition e = parse_prometheus_text(registry.expose());
  const double per_verb = 2.0 * kPerThread;  // two threads per verb
  EXPECT_EQ(e.value("slicelab_extender_requests_total", {{"verb", "filter"}, {"code", "200"}}),
            per_verb * 0.9);
  EXPECT_EQ(e.value("slicelab_extender_requests_total", {{"verb", "filter"}, {"code", "400"}}),
            per_verb * 0.1);
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_count", {{"verb", "prioritize"}}),
            per_verb);
  // 1.5 ms lies in the 2 ms bucket, not the 1 ms one.
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_bucket",
                    {{"verb", "prioritize"}, {"le", "0.001"}}),
            0);
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_bucket",
                    {{"verb", "prioritize"}, {"le", "0.002"}}),
            per_verb);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", {{"result", "feasible"}}),
            kThreads * kPerThread);
}

GpuAllocationSnapshot two_nodes() {
  GpuAllocationSnapshot s;
  s.nodes.push_back({"node-a",
                     {{0, "GPU-aaaa", "NVIDIA-A100", 8LL << 30, 40LL << 30, 30, 100, 2},
                      {1, "GPU-bbbb", "NVIDIA-A100", 0, 40LL << 30, 0, 100, 0}}});
  s.nodes.push_back({"node-b", {{0, "", "NVIDIA-T4", 16LL << 30, 16LL << 30, 100, 100, 1}}});
  s.pods.push_back({"team-a", "train-1", "node-a", 0, "GPU-aaaa", 6LL << 30, 20});
  s.pods.push_back({"team-a", "train-2", "node-a", 0, "GPU-aaaa", 2LL << 30, 10});
  s.pods.push_back({"team-b", "infer-1", "node-b", 0, "", 16LL << 30, 100});  // no UUID: left out
  return s;
}

TEST(ExtenderMetrics, CarriesTheNamedSeries) {
  MetricRegistry registry;
  ExtenderMetrics metrics(registry);
  metrics.record_request("filter", 200, 0.0004);
  metrics.record_request("filter", 200, 0.003);
  metrics.record_request("bind", 409, 0.02);
  metrics.record_request("/unknown", 404, 0.00001);
  metrics.record_decision(DecisionResult::kBound);
  metrics.record_decision(DecisionResult::kBound);
  metrics.record_decision(DecisionResult::kUnschedulable);
  metrics.update_gpu_allocation(two_nodes());
  metrics.update_shadow({3.5, 1.25, 4, 10, 6, 1});
  metrics.update_shadow({3.5, 1.25, 4, 12, 7, 1});
  metrics.update_shadow({3.5, 1.25, 4, 11, 7, 1});  // a total never moves a counter down
  metrics.update_cluster({true, 5, 40, 31, 2});
  metrics.update_cluster({true, 6, 41, 32, 3});

  const PromExposition e = parse_prometheus_text(registry.expose());
  using L = std::map<std::string, std::string>;
  EXPECT_EQ(e.value("slicelab_extender_requests_total", L{{"verb", "filter"}, {"code", "200"}}), 2);
  EXPECT_EQ(e.value("slicelab_extender_requests_total", L{{"verb", "bind"}, {"code", "409"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_requests_total", L{{"verb", "other"}, {"code", "404"}}), 1);
  EXPECT_EQ(e.family("slicelab_extender_request_duration_seconds")->type, "histogram");
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_bucket",
                    L{{"verb", "filter"}, {"le", "0.0005"}}),
            1);
  EXPECT_EQ(e.value("slicelab_extender_request_duration_seconds_bucket",
                    L{{"verb", "filter"}, {"le", "0.005"}}),
            2);
  EXPECT_NEAR(*e.value("slicelab_extender_request_duration_seconds_sum", L{{"verb", "filter"}}),
              0.0034, 1e-12);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", L{{"result", "bound"}}), 2);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", L{{"result", "unschedulable"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_decisions_total", L{{"result", "bind_failed"}}), 0);

  // HAMi's names and labels (cmd/scheduler/metrics.go), zone="vGPU" as its collector adds.
  const L a0 = {{"node", "node-a"},
                {"device_uuid", "GPU-aaaa"},
                {"device_index", "0"},
                {"device_type", "NVIDIA-A100"},
                {"zone", "vGPU"}};
  L a0_cores = a0;
  a0_cores["device_cores"] = "100";
  L a0_overview = a0_cores;
  a0_overview["device_memory_limit"] = "40960";  // MiB, as HAMi writes it
  EXPECT_EQ(e.value("hami_gpu_memory_allocated_bytes", a0_cores), 8589934592.0);
  EXPECT_EQ(e.value("hami_gpu_memory_limit_bytes", a0), 42949672960.0);
  EXPECT_EQ(e.value("hami_gpu_core_allocated_ratio", a0), 30);
  EXPECT_EQ(e.value("hami_gpu_core_limit_ratio", a0), 100);
  EXPECT_EQ(e.value("hami_gpu_shared_count", a0), 2);
  EXPECT_EQ(e.value("hami_node_gpu_overview", a0_overview), 8589934592.0);
  EXPECT_EQ(e.value("hami_node_gpu_memory_allocated_ratio", a0), 0.2);
  const L b0 = {{"node", "node-b"},
                {"device_uuid", ""},
                {"device_index", "0"},
                {"device_type", "NVIDIA-T4"},
                {"zone", "vGPU"}};
  EXPECT_EQ(e.value("hami_node_gpu_memory_allocated_ratio", b0), 1);
  EXPECT_EQ(e.family("hami_gpu_shared_count")->samples.size(), 3u);
  const L train2 = {{"namespace", "team-a"},  {"node", "node-a"},          {"pod", "train-2"},
                    {"container_index", "0"}, {"device_uuid", "GPU-aaaa"}, {"zone", "vGPU"}};
  EXPECT_EQ(e.value("hami_vgpu_memory_allocated_bytes", train2), 2147483648.0);
  EXPECT_EQ(e.value("hami_vgpu_core_allocated_ratio", train2), 10);
  EXPECT_EQ(e.family("hami_vgpu_memory_allocated_bytes")->samples.size(), 2u);

  EXPECT_EQ(e.value("slicelab_shadow_fragmented_gpus", L{{"side", "actual"}}), 3.5);
  EXPECT_EQ(e.value("slicelab_shadow_fragmented_gpus", L{{"side", "slicelab"}}), 1.25);
  EXPECT_EQ(e.value("slicelab_shadow_placeable_pending_pods"), 4);
  EXPECT_EQ(e.value("slicelab_shadow_pods_total"), 12);
  EXPECT_EQ(e.family("slicelab_shadow_pods_total")->type, "counter");
  EXPECT_EQ(e.value("slicelab_shadow_bound_pods_total", L{{"agreement", "same_node"}}), 7);
  EXPECT_EQ(e.value("slicelab_shadow_bound_pods_total", L{{"agreement", "other_node"}}), 1);
  EXPECT_EQ(e.value("slicelab_extender_ready"), 1);
  EXPECT_EQ(e.value("slicelab_extender_nodes"), 6);
  EXPECT_EQ(e.value("slicelab_extender_pods", L{{"state", "known"}}), 41);
  EXPECT_EQ(e.value("slicelab_extender_pods", L{{"state", "bound"}}), 32);
  EXPECT_EQ(e.value("slicelab_extender_watch_objects_rejected_total"), 3);

  // A node that left takes its GPUs out of the exposition.
  GpuAllocationSnapshot one = two_nodes();
  one.nodes.pop_back();
  metrics.update_gpu_allocation(one);
  const PromExposition after = parse_prometheus_text(registry.expose());
  EXPECT_EQ(after.family("hami_gpu_shared_count")->samples.size(), 2u);
  EXPECT_FALSE(after.value("hami_node_gpu_memory_allocated_ratio", b0).has_value());
}

}  // namespace
}  // namespace slicelab::k8s
