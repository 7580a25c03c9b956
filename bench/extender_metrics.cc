// The cost of the extender's metrics: one request's observation (counter + histogram, from one
// and from several threads, to show that observers do not wait on a lock), and one scrape of a
// 1,000- and a 20,000-node × 8-GPU cluster (filling the HAMi gauges from a snapshot, then the
// exposition); its peak heap is measured with /usr/bin/time -v (docs/extender.md#limits).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <string>

#include "backends/k8s/extender_metrics.h"
#include "backends/k8s/prometheus_registry.h"

namespace {

using slicelab::k8s::ExtenderMetrics;
using slicelab::k8s::MetricRegistry;

// One registry shared by the benchmark's threads (a fixture is one object for all of them).
class Observers : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State& state) override {
    if (state.thread_index() == 0) {
      registry_ = std::make_unique<MetricRegistry>();
      metrics_ = std::make_unique<ExtenderMetrics>(*registry_);
    }
  }
  void TearDown(const benchmark::State& state) override {
    if (state.thread_index() == 0) {
      metrics_.reset();
      registry_.reset();
    }
  }

 protected:
  std::unique_ptr<MetricRegistry> registry_;
  std::unique_ptr<ExtenderMetrics> metrics_;
};

BENCHMARK_DEFINE_F(Observers, RecordRequest)(benchmark::State& state) {
  double seconds = 0.0001;
  for (auto _ : state) {
    metrics_->record_request("filter", 200, seconds);
    seconds = seconds < 1 ? seconds * 1.5 : 0.0001;
  }
}
BENCHMARK_REGISTER_F(Observers, RecordRequest)->Threads(1)->Threads(2)->UseRealTime();

// Arguments: nodes, and the exposition's limit in MiB (64: the default; 256: none reached).
void BM_Scrape(benchmark::State& state) {
  MetricRegistry registry(static_cast<size_t>(state.range(1)) << 20);
  ExtenderMetrics metrics(registry);
  slicelab::k8s::GpuAllocationSnapshot snapshot;
  for (int n = 0; n < state.range(0); ++n) {
    slicelab::k8s::NodeGpuAllocation node{"node-" + std::to_string(n), {}};
    for (int g = 0; g < 8; ++g) {
      node.gpus.push_back({g, "GPU-" + std::to_string(n * 8 + g), "NVIDIA-A100-SXM4-80GB",
                           (g * 10LL) << 30, 80LL << 30, g * 12.5, 100, g % 3});
    }
    snapshot.nodes.push_back(std::move(node));
  }
  // The process's peak resident memory, in MiB: what a scrape adds over the snapshot it reads.
  const auto peak_mib = [] {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
  };
  const double before = peak_mib();
  size_t bytes = 0;
  for (auto _ : state) {
    metrics.update_gpu_allocation(snapshot);
    const std::string text = registry.expose();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["peak_rss_added_mib"] = peak_mib() - before;
}
BENCHMARK(BM_Scrape)
    ->Args({1000, 64})
    ->Args({20000, 64})
    ->Args({20000, 256})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
