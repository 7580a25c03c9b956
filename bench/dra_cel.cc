// DRA CEL selectors: one evaluation of NVIDIA's class selector and of a memory and product
// selector on the corpus's devices (tests/data/dra), compiled once beforehand; and matches() on
// hostile patterns, which RE2 runs in time linear in the input (docs/dra.md#cel).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "sim/modes/dra/cel_expression.h"
#include "sim/modes/dra/cel_selectors.h"
#include "workloads/inputs/dra_objects.h"

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

// A device with one string attribute, `serial`.
class SerialDevice final : public CelDevice {
 public:
  explicit SerialDevice(std::string serial) : serial_(std::move(serial)) {}
  std::string_view driver() const override { return "gpu.nvidia.com"; }
  CelValue attribute(std::string_view, std::string_view name) const override {
    return name == "serial" ? CelValue::string(serial_) : CelValue{};
  }
  CelValue capacity(std::string_view, std::string_view) const override { return {}; }
  bool allow_multiple_allocations() const override { return false; }

 private:
  std::string serial_;
};

CelExpression serial_matches(const std::string& pattern) {
  return CelExpression::compile(
      R"(device.attributes["gpu.nvidia.com"].serial.matches(")" + pattern + "\")",
      [](size_t) { return std::string("bench"); });
}

// With a cold automaton each time (a fresh compile, not timed): each device a selector meets
// is evaluated once, with its own string, so the states RE2 caches on one help little.
void match(benchmark::State& state, const std::string& pattern, const std::string& input) {
  const SerialDevice d(input);
  for (auto _ : state) {
    state.PauseTiming();
    const CelExpression e = serial_matches(pattern);
    state.ResumeTiming();
    benchmark::DoNotOptimize(e.evaluate(d));
  }
}

// (a+)+$ on 63 'a's and a '!': exponential for a backtracking engine (std::regex did not finish
// in 60 s), linear here.
void BM_NestedQuantifier(benchmark::State& state) {
  match(state, "^(a+)+$", std::string(63, 'a') + "!");
}
BENCHMARK(BM_NestedQuantifier);

// The same with the pattern's automaton warm: what each further device with that string costs.
void BM_NestedQuantifierWarm(benchmark::State& state) {
  const CelExpression e = serial_matches("^(a+)+$");
  const SerialDevice d(std::string(63, 'a') + "!");
  for (auto _ : state) benchmark::DoNotOptimize(e.evaluate(d));
}
BENCHMARK(BM_NestedQuantifierWarm);

// The slowest match found within the bounds: nested counted repetitions near
// kMaxCelRegexProgramSize instructions (865), on kMaxCelMatchInput bytes that keep most of them
// alive in each of RE2's automaton states, one new state per byte.
void BM_WorstPattern(benchmark::State& state) {
  match(state, "(?:a{0,20}b?){0,20}c", std::string(kMaxCelMatchInput, 'a'));
}
BENCHMARK(BM_WorstPattern);

}  // namespace

BENCHMARK_MAIN();
