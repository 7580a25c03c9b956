// HAMi's scheduler at scale: sim_throughput's trace (100,000 pods on 1,000 nodes x 8 GPUs)
// replayed under sharing mode hami with placement hami-binpack (docs/performance.md#hami).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/bench_workload.h"
#include "sim/engine/engine.h"
#include "sim/modes/hami/hami_settings.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "workloads/inputs/generator.h"

namespace slicelab {
namespace {

constexpr int kNodes = 1000;
constexpr uint64_t kPods = 100'000;

ClusterSpec bench_cluster() {
  return bench::a100_cluster(kNodes);
}

// sim_throughput's mix (about 90% of the GPUs offered): queues form, so every attempt's filter
// meets many full nodes, which is what the per-node summary refuses in one check.
std::vector<PodSpec> bench_pods() {
  return bench::openb_like_pods(kPods, 2830);
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
