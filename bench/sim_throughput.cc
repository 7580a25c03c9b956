// Simulator throughput: replays a generated trace of 100,000 pods on 1,000 nodes x 8 GPUs.
// Target (issue 2): the whole best-fit replay under 2 s on a 2-core machine, peak RSS < 500 MB.
// BM_Scale rows (issue 30): the same mix at 100 pods per node on 1,000 and 10,000 nodes, so that
// us_per_pod shows how placement cost grows with the cluster (target: < 1.5x from 1k to 10k).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_workload.h"
#include "sim/engine/engine.h"
#include "sim/modes/mode_registry.h"
#include "sim/modes/time_slice/time_slice_settings.h"
#include "sim/placement/placement_config.h"
#include "workloads/inputs/generator.h"

namespace slicelab {
namespace {

constexpr int kNodes = 1000;
constexpr uint64_t kPods = 100'000;

ClusterSpec bench_cluster(int nodes = kNodes) {
  return bench::a100_cluster(nodes);
}

// The load of bench_pods() per node, at any node count.
std::vector<PodSpec> generate_bench_pods(int nodes, uint64_t count) {
  return bench::openb_like_pods(count, 2.83 * nodes);
}

const std::vector<PodSpec>& bench_pods() {
  static const std::vector<PodSpec> pods = bench::openb_like_pods(kPods, 2830);
  return pods;
}

void replay(benchmark::State& state, const char* preset, SharingConfig sharing, bool backfill) {
  const ClusterSpec cluster = bench_cluster();
  const GpuCatalog catalog = GpuCatalog::builtin();
  const auto& pods = bench_pods();
  const auto mode = make_sharing_mode(sharing);
  EngineConfig cfg;
  cfg.backfill = backfill;
  cfg.sample_interval_s = 300;
  uint64_t events = 0;
  RunResult last;
  for (auto _ : state) {
    PlacementPolicy placement = build_placement(*placement_preset(preset));
    const RunInputs in{cluster, catalog, pods, *mode, cfg, 7};
    last = run_simulation(in, placement);
    events += last.summary.events;
    // A const copy: DoNotOptimize on a double lvalue lets GCC clobber it (benchmark 1.7's
    // "+m,r" constraint), which once turned this very metric into garbage.
    const double ratio = last.summary.allocation_ratio;
    benchmark::DoNotOptimize(ratio);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double iters = static_cast<double>(state.iterations());
  state.counters["pods_per_s"] = benchmark::Counter(iters * kPods, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["attempts"] = static_cast<double>(last.summary.placement_attempts);
  state.counters["alloc_ratio"] = last.summary.allocation_ratio;
  state.counters["queue_p99_s"] = last.summary.queue_delay_s.p99;
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void BM_BestFitWholeCard(benchmark::State& s) {
  replay(s, "best-fit", {}, false);
}
void BM_BestFitWholeCardBackfill(benchmark::State& s) {
  replay(s, "best-fit", {}, true);
}
// Spread, not best-fit: best-fit stacks these memory-hungry pods on one GPU and nearly all of
// them fail with out-of-memory at once, which would leave the rate model unexercised.
void BM_SpreadTimeSlice4(benchmark::State& s) {
  SharingConfig ts;
  ts.kind = "time-slice";
  ts.set_mode_settings(std::make_shared<TimeSliceSettings>(TimeSliceSettings{4, 0.05}));
  replay(s, "spread", ts, false);
}
void BM_FirstFitWholeCard(benchmark::State& s) {
  replay(s, "first-fit", {}, false);
}
void BM_RandomWholeCard(benchmark::State& s) {
  replay(s, "random", {}, false);
}

// 100 pods per node on range(0) nodes, with placement indexes on (range(1) = 1) or off (0, the
// full pass of every filter and scorer over every node, as before issue 30): one run, timed
// whole; us_per_pod is the figure to compare (the trace is generated once per node count, outside
// the timing).
void scale_replay(benchmark::State& state, const char* preset, const SharingConfig& sharing,
                  int nodes, bool indexes, uint64_t per_node = 100) {
  const uint64_t count = static_cast<uint64_t>(nodes) * per_node;
  static std::map<std::pair<int, uint64_t>, std::vector<PodSpec>> traces;  // NOLINT: memo
  auto& pods = traces[{nodes, count}];
  if (pods.empty()) pods = generate_bench_pods(nodes, count);
  const ClusterSpec cluster = bench_cluster(nodes);
  const GpuCatalog catalog = GpuCatalog::builtin();
  const auto mode = make_sharing_mode(sharing);
  EngineConfig cfg;
  cfg.sample_interval_s = 300;
  RunResult last;
  for (auto _ : state) {
    PlacementPolicy placement = build_placement(*placement_preset(preset));
    placement.set_indexes(indexes);
    const RunInputs in{cluster, catalog, pods, *mode, cfg, 7};
    last = run_simulation(in, placement);
    const double ratio = last.summary.allocation_ratio;
    benchmark::DoNotOptimize(ratio);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double iters = static_cast<double>(state.iterations());
  state.counters["us_per_pod"] =
      benchmark::Counter(iters * static_cast<double>(count) / 1e6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["attempts"] = static_cast<double>(last.summary.placement_attempts);
  state.counters["alloc_ratio"] = last.summary.allocation_ratio;
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void scale_replay(benchmark::State& state, const char* preset, const SharingConfig& sharing) {
  scale_replay(state, preset, sharing, static_cast<int>(state.range(0)), state.range(1) != 0);
}

SharingConfig time_slice4() {
  SharingConfig ts;
  ts.kind = "time-slice";
  ts.set_mode_settings(std::make_shared<TimeSliceSettings>(TimeSliceSettings{4, 0.05}));
  return ts;
}

void BM_Scale_BestFit(benchmark::State& s) {
  scale_replay(s, "best-fit", {});
}
void BM_Scale_SpreadTimeSlice4(benchmark::State& s) {
  scale_replay(s, "spread", time_slice4());
}
void BM_Scale_HamiBinpack(benchmark::State& s) {
  SharingConfig hami;
  hami.kind = "hami";
  scale_replay(s, "hami-binpack", hami);
}
// The control for the growth rows: 1,000 nodes with the 10,000-node row's million pods, so a
// difference between the two sizes is the cluster's, not the trace's length (performance.md).
void BM_Scale_BestFitLong(benchmark::State& s) {
  scale_replay(s, "best-fit", {}, 1000, true, 1000);
}
void BM_Scale_FirstFit(benchmark::State& s) {
  scale_replay(s, "first-fit", {});
}
void BM_Scale_Fgd(benchmark::State& s) {
  scale_replay(s, "fgd", {});
}
// Every shipped preset at 10,000 nodes x 1M pods, indexes on (target: each under 10 s); the hami
// presets under sharing mode hami, the others whole-card. range(0) indexes kScalePresets.
constexpr const char* kScalePresets[] = {
    "best-fit",    "spread",         "first-fit", "topology-aware", "fgd",        "dot-product",
    "gpu-packing", "gpu-clustering", "random",    "hami-binpack",   "hami-spread"};
void BM_Scale_Preset(benchmark::State& s) {
  const std::string preset = kScalePresets[s.range(0)];
  s.SetLabel(preset);
  SharingConfig sharing;
  if (preset.starts_with("hami")) sharing.kind = "hami";
  scale_replay(s, preset.c_str(), sharing, 10000, true);
}
// 50,000 nodes x 5M pods: minutes before issue 30; run only with SLICELAB_BENCH_HUGE=1.
void BM_Scale_BestFitHuge(benchmark::State& s) {
  if (std::getenv("SLICELAB_BENCH_HUGE") == nullptr) {  // NOLINT(concurrency-mt-unsafe)
    s.SkipWithError("set SLICELAB_BENCH_HUGE=1 to run the 50,000-node row");
    return;
  }
  scale_replay(s, "best-fit", {}, static_cast<int>(s.range(0)), true);
}

BENCHMARK(BM_BestFitWholeCard)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_BestFitWholeCardBackfill)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SpreadTimeSlice4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FirstFitWholeCard)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RandomWholeCard)->Unit(benchmark::kMillisecond)->UseRealTime();
#define SLICELAB_SCALE_ROW(fn)         \
  BENCHMARK(fn)                        \
      ->ArgNames({"nodes", "indexes"}) \
      ->Args({1000, 0})                \
      ->Args({1000, 1})                \
      ->Args({10000, 0})               \
      ->Args({10000, 1})               \
      ->Unit(benchmark::kMillisecond)  \
      ->UseRealTime()                  \
      ->Iterations(1)
SLICELAB_SCALE_ROW(BM_Scale_BestFit);
SLICELAB_SCALE_ROW(BM_Scale_SpreadTimeSlice4);
SLICELAB_SCALE_ROW(BM_Scale_HamiBinpack);
SLICELAB_SCALE_ROW(BM_Scale_FirstFit);
BENCHMARK(BM_Scale_BestFitLong)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
SLICELAB_SCALE_ROW(BM_Scale_Fgd);
BENCHMARK(BM_Scale_Preset)
    ->DenseRange(0, static_cast<int>(std::size(kScalePresets)) - 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_Scale_BestFitHuge)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
