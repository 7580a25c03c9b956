// The structured allocator's cost per Filter call: one pod's claim tried on one node of eight
// H100s published as MIG partitions over shared counters, with half the partitions in use; and
// the step bound's cost on an adversarial matchAttribute claim.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <string_view>

#include "sim/modes/dra/structured_allocator.h"

namespace slicelab {
namespace {

class AnyDevice final : public DraSelectorEvaluator {
 public:
  bool matches(DraSelectorId, const DraDevice&, std::string_view) const override { return true; }
};

DraQuantity qty(int64_t v) {
  return {v, std::to_string(v)};
}

// Per GPU: seven 1g partitions (1 memory slice, 1 compute slice each) and a 7g one (all of them).
DraModel mig_node(int claims) {
  DraModel m;
  m.device_classes.push_back({"mig", {}, {}, {}});
  DraResourceSlice s;
  s.name = "n0";
  s.driver = "gpu.nvidia.com";
  s.pool = {"n0", 1, 1};
  s.node_name = "n0";
  for (int g = 0; g < 8; ++g) {
    const std::string set = "gpu-" + std::to_string(g);
    s.shared_counters.push_back({set, {{"memory", qty(8)}, {"multiprocessors", qty(7)}}});
    for (int i = 0; i < 8; ++i) {
      DraDevice d;
      d.name = set + (i < 7 ? "-mig-1g-" + std::to_string(i) : "-mig-7g");
      const int64_t k = i < 7 ? 1 : 7;
      d.consumes_counters.push_back({set, {{"memory", qty(k)}, {"multiprocessors", qty(k)}}});
      s.devices.push_back(d);
    }
  }
  m.resource_slices.push_back(s);
  for (int c = 0; c < claims; ++c) {
    DraResourceClaim claim;
    claim.name = "c" + std::to_string(c);
    DraDeviceRequest r;
    r.name = "mig";
    r.exactly.emplace();
    r.exactly->device_class_name = "mig";
    claim.spec.requests.push_back(r);
    m.resource_claims.push_back(claim);
  }
  return m;
}

// 28 of the 56 1g partitions taken (GPUs 0-3 full); then a claim for any partition: the search
// skips the 32 devices of the full GPUs (in use, or their counters exhausted) first.
void BM_DraFilterMigHalfFull(benchmark::State& state) {
  const DraModel m = mig_node(29);
  AnyDevice any;
  DraStructuredAllocator a(m, any, {"n0"});
  for (DraClaimId c = 0; c < 28; ++c) {
    const std::array<DraClaimId, 1> one{c};
    a.allocate(one, 0);
  }
  const std::array<DraClaimId, 1> probe{28};
  for (auto _ : state) benchmark::DoNotOptimize(a.can_allocate(probe, 0));
  state.counters["steps"] = static_cast<double>(a.last_steps());
}
BENCHMARK(BM_DraFilterMigHalfFull);

// Reserve then release (pod start and end) of one 1g partition on the half-full node.
void BM_DraAllocateRelease(benchmark::State& state) {
  const DraModel m = mig_node(29);
  AnyDevice any;
  DraStructuredAllocator a(m, any, {"n0"});
  for (DraClaimId c = 0; c < 28; ++c) {
    const std::array<DraClaimId, 1> one{c};
    a.allocate(one, 0);
  }
  const std::array<DraClaimId, 1> probe{28};
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.allocate(probe, 0));
    a.release(probe);
  }
}
BENCHMARK(BM_DraAllocateRelease);

// The adversarial matchAttribute case (tests/dra/structured_allocator_test.cc): 8 GPUs and a NIC
// on one PCIe root, on a node whose 200 GPUs and only NIC sit on different roots, so that every
// combination of 8 GPUs fails at the NIC. One attempt runs until the step bound stops it: at the
// default (200,000) and at the ceiling (1,000,000). The time per attempt is the figure
// docs/dra.md quotes.
class TypeSelector final : public DraSelectorEvaluator {
 public:
  explicit TypeSelector(const DraModel& m) : m_(m) {}
  bool matches(DraSelectorId id, const DraDevice& d, std::string_view) const override {
    const DraAttribute* a = d.find_attribute("gpu.nvidia.com/type");
    return a != nullptr && a->string_value == m_.selectors[id].expression;
  }

 private:
  const DraModel& m_;
};

DraAttribute attr(const std::string& name, std::string s, int64_t i = 0) {
  DraAttribute a;
  a.name = name;
  a.qualified = "gpu.nvidia.com/" + name;
  a.type = s.empty() ? DraAttributeType::Int : DraAttributeType::String;
  a.string_value = std::move(s);
  a.int_value = i;
  return a;
}

DraModel adversarial_node() {
  DraModel m;
  m.selectors = {{"gpu", {}}, {"nic", {}}};
  m.device_classes.push_back({"gpu", {0}, {}, {}});
  m.device_classes.push_back({"nic", {1}, {}, {}});
  DraResourceSlice s;
  s.name = "n0";
  s.driver = "gpu.nvidia.com";
  s.pool = {"n0", 1, 1};
  s.node_name = "n0";
  for (int i = 0; i < 201; ++i) {
    DraDevice d;
    d.name = (i < 200 ? "gpu-" : "nic-") + std::to_string(i);
    d.attributes = {attr("type", i < 200 ? "gpu" : "nic"), attr("pcieRoot", "", i < 200 ? 1 : 2)};
    s.devices.push_back(d);
  }
  m.resource_slices.push_back(s);
  DraResourceClaim claim;
  claim.name = "c";
  for (const char* cls : {"gpu", "nic"}) {
    DraDeviceRequest r;
    r.name = cls;
    r.exactly.emplace();
    r.exactly->device_class_name = cls;
    r.exactly->count = std::string_view(cls) == "gpu" ? 8 : 1;
    claim.spec.requests.push_back(r);
  }
  claim.spec.constraints.push_back({{"gpu", "nic"}, "gpu.nvidia.com/pcieRoot"});
  m.resource_claims.push_back(claim);
  return m;
}

void BM_DraAdversarialMatchAttribute(benchmark::State& state) {
  const DraModel m = adversarial_node();
  const TypeSelector sel(m);
  DraStructuredAllocator a(m, sel, {"n0"}, state.range(0));
  const std::array<DraClaimId, 1> claim{0};
  for (auto _ : state) benchmark::DoNotOptimize(a.can_allocate(claim, 0));
  state.counters["steps"] = static_cast<double>(a.last_steps());
  state.counters["ns_per_step"] = benchmark::Counter(
      static_cast<double>(a.last_steps()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DraAdversarialMatchAttribute)
    ->Arg(DraStructuredAllocator::kDefaultMaxSteps)
    ->Arg(DraStructuredAllocator::kMaxMaxSteps)
    ->Unit(benchmark::kMillisecond);

// The costliest steps the reader lets through: devices of 32 attributes (the API's limit) and a
// claim of 32 matchAttribute constraints (its limit) on the attribute each device has last, the
// NIC's all different. One attempt at the ceiling.
void BM_DraManyConstraints(benchmark::State& state) {
  DraModel m = adversarial_node();
  for (DraDevice& d : m.resource_slices[0].devices) {
    for (int k = 0; k < 30; ++k) d.attributes.push_back(attr("a" + std::to_string(k), "", k));
    d.attributes.push_back(attr("root", "", d.name.starts_with("nic") ? 2 : 1));
  }
  auto& constraints = m.resource_claims[0].spec.constraints;
  constraints.clear();
  for (int k = 0; k < 32; ++k) constraints.push_back({{}, "gpu.nvidia.com/root"});
  const TypeSelector sel(m);
  DraStructuredAllocator a(m, sel, {"n0"}, DraStructuredAllocator::kMaxMaxSteps);
  const std::array<DraClaimId, 1> claim{0};
  for (auto _ : state) benchmark::DoNotOptimize(a.can_allocate(claim, 0));
  state.counters["steps"] = static_cast<double>(a.last_steps());
  state.counters["ns_per_step"] = benchmark::Counter(
      static_cast<double>(a.last_steps()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DraManyConstraints)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
