// HAMi's scheduler at scale: sim_throughput's trace (100,000 pods on 1,000 nodes x 8 GPUs)
// replayed under sharing mode hami with placement hami-binpack (docs/performance.md#hami).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/modes/hami/hami_settings.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "workloads/inputs/generator.h"

namespace slicelab {
namespace {

constexpr int kNodes = 1000;
constexpr int kGpusPerNode = 8;
constexpr uint64_t kPods = 100'000;

ClusterSpec bench_cluster() {
  ClusterSpec c;
  NodeGroup g;
  g.name = "a100";
  g.count = kNodes;
  g.cpu_milli = 128'000;
  g.memory_mib = 1024 * 1024;
  g.gpu_model = *GpuCatalog::builtin().index_of("A100-80GB");
  g.gpus_per_node = kGpusPerNode;
  c.groups.push_back(g);
  return c;
}

PodShape shape(std::string name, double weight, int gpus, int milli, int64_t gpu_mem, int64_t cpu,
               double median_s) {
  PodShape s;
  s.name = std::move(name);
  s.weight = weight;
  s.request.gpu_count = gpus;
  s.request.gpu_milli = milli;
  s.request.gpu_memory_mib = gpu_mem;
  s.request.cpu_milli = cpu;
  s.request.memory_mib = cpu * 4;
  s.duration.kind = DurationDistribution::Kind::kLognormal;
  s.duration.a = median_s;
  s.duration.b = 0.8;
  s.duration.min_s = 30;
  return s;
}

// sim_throughput's mix (about 90% of the GPUs offered): queues form, so every attempt's filter
// meets many full nodes, which is what the per-node summary refuses in one check.
std::vector<PodSpec> bench_pods() {
  GeneratorSpec g;
  g.pod_count = kPods;
  g.shapes = {shape("frac", 40, 1, 300, 10'000, 4'000, 1800),
              shape("one", 35, 1, 1000, 30'000, 8'000, 3600),
              shape("two", 10, 2, 1000, 40'000, 16'000, 3600),
              shape("four", 10, 4, 1000, 60'000, 32'000, 5400),
              shape("eight", 5, 8, 1000, 70'000, 64'000, 7200)};
  g.arrivals_per_hour = 2830;
  return generate_pods(g, 42);
}

void BM_HamiBinpack(benchmark::State& state) {
  const ClusterSpec cluster = bench_cluster();
  const GpuCatalog catalog = GpuCatalog::builtin();
  const std::vector<PodSpec> pods = bench_pods();
  SharingConfig sharing;
  sharing.kind = "hami";
  sharing.set_mode_settings(std::make_shared<HamiSettings>());
  const auto mode = make_sharing_mode(sharing);
  EngineConfig cfg;
  cfg.sample_interval_s = 300;
  RunResult last;
  for (auto _ : state) {
    PlacementPolicy placement = build_placement(*placement_preset("hami-binpack"));
    const RunInputs in{cluster, catalog, pods, *mode, cfg, 7};
    last = run_simulation(in, placement);
    const double ratio = last.summary.allocation_ratio;
    benchmark::DoNotOptimize(ratio);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double iters = static_cast<double>(state.iterations());
  state.counters["pods_per_s"] = benchmark::Counter(iters * kPods, benchmark::Counter::kIsRate);
  state.counters["attempts"] = static_cast<double>(last.summary.placement_attempts);
  state.counters["alloc_ratio"] = last.summary.allocation_ratio;
  state.counters["queue_p99_s"] = last.summary.queue_delay_s.p99;
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

BENCHMARK(BM_HamiBinpack)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
