// DRA CEL selectors: one evaluation of NVIDIA's class selector and of a memory and product
// selector on the corpus's devices (tests/data/dra), compiled once beforehand.
#include <benchmark/benchmark.h>

#include <string>

#include "sim/dra/cel_selectors.h"
#include "workloads/dra_objects.h"

namespace {

using namespace slicelab;

DraObjects corpus() {
  DraObjects o;
  const std::string dir = std::string(SLICELAB_SOURCE_DIR) + "/tests/data/dra/";
  for (const char* f : {"deviceclasses.yaml", "resourceslices.json", "claims.yaml"})
    read_dra_objects(dir + f, o);
  return o;
}

void run(benchmark::State& state, bool claim_selector) {
  const DraObjects o = corpus();
  const CelSelectorEvaluator cel(o);
  const DraSelectorId id = claim_selector
                               ? o.model.resource_claims[0].spec.requests[0].exactly->selectors[0]
                               : o.model.device_classes[0].selectors[0];
  const auto& devices = o.model.resource_slices[1].devices;
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cel.matches(id, devices[i], "gpu.nvidia.com"));
    i = i + 1 == devices.size() ? 0 : i + 1;
  }
}

void BM_ClassSelector(benchmark::State& state) {
  run(state, false);
}
void BM_MemoryAndProductSelector(benchmark::State& state) {
  run(state, true);
}
BENCHMARK(BM_ClassSelector);
BENCHMARK(BM_MemoryAndProductSelector);

}  // namespace

BENCHMARK_MAIN();
