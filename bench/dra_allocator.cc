// The structured allocator's cost per Filter call: one pod's claim tried on one node of eight
// H100s published as MIG partitions over shared counters, with half the partitions in use.
#include <benchmark/benchmark.h>

#include <array>
#include <string>

#include "sim/dra/structured_allocator.h"

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

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
