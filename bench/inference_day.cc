// A day of the shipped inference cluster (scenarios/inference-cluster.yaml: twelve autoscaled
// services peaking at 2,300 requests/s in all, notebooks and training jobs on 48 A100s), one
// policy per benchmark: the engine with the serving approximation, as `slicelab compare` runs
// it. Target (issue 32): under 5 s per policy on 2 cores (docs/performance.md#inference-services).
#include <benchmark/benchmark.h>

#include <string>

#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"

namespace slicelab {
namespace {

const Scenario& inference_scenario() {
  static const Scenario sc =
      load_scenario(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/inference-cluster.yaml", 11);
  return sc;
}

void BM_InferenceClusterDay(benchmark::State& state) {
  const Scenario& sc = inference_scenario();
  const PolicySpec& spec = sc.policies.at(static_cast<size_t>(state.range(0)));
  RunResult last;
  for (auto _ : state) {
    last = run_policy(sc, spec);
    const double requests =
        last.summary.service_totals ? last.summary.service_totals->requests : 0.0;
    benchmark::DoNotOptimize(requests);  // a const copy (see sim_throughput.cc)
  }
  if (last.summary.service_totals) {
    state.counters["requests"] = last.summary.service_totals->requests;
    state.counters["p99_ms"] = 1e3 * last.summary.service_totals->latency_s.p99;
  }
  state.SetLabel(spec.name);
}
BENCHMARK(BM_InferenceClusterDay)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
