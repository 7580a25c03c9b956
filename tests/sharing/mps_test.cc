// Pins down MPS sharing: thread-share rates and the interference factor on hand-computed cases,
// pinned memory limits, and fault propagation to neighbours with probability 0 and 1.
#include "sim/modes/mps/mps.h"
#include "sim/sharing/gpu_rate_solver.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/sharing/sharing_helpers.h"

namespace slicelab {
namespace {

using testing::classed;
using testing::cluster_of;
using testing::load;
using testing::node_group;
using testing::one_gpu;
using testing::pod;
using testing::run_with_classes;

SharingConfig mps(int replicas, double propagation, InterferenceCoefficients k = {},
                  double client_fault_probability = 0.0) {
  SharingConfig c;
  c.kind = "mps";
  auto s = std::make_shared<MpsSettings>();
  s->replicas = replicas;
  s->fault_propagation = propagation;
  s->client_fault_probability = client_fault_probability;
  c.set_mode_settings(std::move(s));
  c.interference = k;
  return c;
}

struct Out {
  std::vector<double> rate, err;
};
Out progress_of(const SharingMode& m, const std::vector<TenantLoad>& loads) {
  Out o{std::vector<double>(loads.size(), -9), std::vector<double>(loads.size(), -9)};
  solve_gpu_rates(m, loads, o.rate, o.err);
  return o;
}

TEST(SimMpsRates, ReplicasCapEachClientAtItsThreadShare) {
  // Two whole-GPU clients with 25% threads each: 0.25 of the SMs each, rate 0.25 / 1.
  const Mps m({4, 0.5, 0.0, {}});
  const Out o = progress_of(m, {load(1.0, 0.25), load(1.0, 0.25)});
  EXPECT_DOUBLE_EQ(o.rate[0], 0.25);
  EXPECT_DOUBLE_EQ(o.rate[1], 0.25);
  EXPECT_DOUBLE_EQ(o.err[0], 0.0);  // it gets exactly what it was promised
  // A client that needs less than its share runs at solo speed.
  const Out small = progress_of(m, {load(0.2, 0.25), load(1.0, 0.25)});
  EXPECT_DOUBLE_EQ(small.rate[0], 1.0);
  EXPECT_DOUBLE_EQ(small.rate[1], 0.25);
}

TEST(SimMpsRates, OversubscribedThreadSharesAreSharedMaxMinFair) {
  // Per-pod limits of 80% each: min(1, 0.8) = 0.8 each, 1.6 > 1, so 0.5 each; error |0.8-0.5|.
  const Mps m({0, 0.5, 0.0, {}});
  const Out o = progress_of(m, {load(1.0, 0.8), load(1.0, 0.8)});
  EXPECT_DOUBLE_EQ(o.rate[0], 0.5);
  EXPECT_DOUBLE_EQ(o.rate[1], 0.5);
  EXPECT_NEAR(o.err[0], 0.3, 1e-15);
}

TEST(SimMpsRates, SharedBandwidthSlowsClientsWithDisjointShares) {
  // sm 0.5, cap 0.5, bandwidth 0.5 each, a = 0.8: f = 1 + 0.8 * 0.5 * 0.5 = 1.2, rate 1/1.2;
  // delivered 0.5 / 1.2, promised 0.5: error 0.5 - 0.41666 = 0.08333.
  const Mps m({2, 0.5, 0.0, {0.8, 0.0}});
  const Out o = progress_of(m, {load(0.5, 0.5, 0.5), load(0.5, 0.5, 0.5)});
  EXPECT_NEAR(o.rate[0], 1.0 / 1.2, 1e-15);
  EXPECT_NEAR(o.rate[1], 1.0 / 1.2, 1e-15);
  EXPECT_NEAR(o.err[0], 0.5 - 0.5 / 1.2, 1e-15);
  // Launch traffic: b = 0.01, neighbours' launches 4 and 10 per ms: f = 1.04 and 1.10.
  const Mps l({2, 0.5, 0.0, {0.0, 0.01}});
  const Out q = progress_of(l, {load(0.5, 0.5, 0, 10), load(0.5, 0.5, 0, 4)});
  EXPECT_NEAR(q.rate[0], 1.0 / 1.04, 1e-15);
  EXPECT_NEAR(q.rate[1], 1.0 / 1.10, 1e-15);
  // Alone, nobody interferes.
  const Out alone = progress_of(m, {load(0.5, 0.5, 0.5)});
  EXPECT_DOUBLE_EQ(alone.rate[0], 1.0);
}

TEST(SimMpsRates, DevicePluginDefaultsAndLimits) {
  const Mps r({4, 0.5, 0.0, {}});
  EXPECT_EQ(r.capacity_units(), 4);
  EXPECT_EQ(r.claim_units(100), 1);
  EXPECT_EQ(r.max_tenants(), 4);
  EXPECT_EQ(r.memory_limit_mib(1000, 81920), 20480);  // 1/N of memory
  EXPECT_EQ(r.describe(), "mps (4 clients of 25% threads, fault propagation 0.5)");
  const Mps p({0, 0.5, 0.0, {}});
  EXPECT_EQ(p.capacity_units(), 1000);
  EXPECT_EQ(p.max_tenants(), 48);
  EXPECT_EQ(p.claim_units(250), 250);
  EXPECT_EQ(p.claim_units(5), 21);                     // 48 clients at most: 1000/48 rounded up
  EXPECT_EQ(p.memory_limit_mib(12000, 81920), 12000);  // its own request
}

// --- the engine: pinned memory limits and fault propagation ---

// a: a whole-GPU client with 50% threads (2 replicas) runs at 0.5 from t=0. b arrives at 10
// with a 50000 MiB peak over its 40960 MiB pinned limit (81920 / 2): it fails at once.
std::vector<PodSpec> oom_pods() {
  return {pod("a", 0, 100).gpu_mem(30000), pod("b", 10, 100).gpu_mem(50000)};
}

TEST(SimMpsEngine, ClientOverItsPinnedLimitFailsAndPropagationZeroSparesNeighbours) {
  const auto r = run_with_classes(one_gpu(), oom_pods(), mps(2, 0.0), {});
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_EQ(r.reason_of(1),
            "out of memory on n-0 GPU 0: peak 50000 MiB over its mps limit of 40960 MiB");
  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 200.0);  // 100 s of work at rate 0.5
  EXPECT_EQ(r.summary.neighbour_failures, 0U);
  EXPECT_EQ(r.summary.not_placed_reasons.at("out of memory (peak over its own memory limit)"), 1U);
}

TEST(SimMpsEngine, PropagationOneTakesDownEveryNeighbour) {
  const auto r = run_with_classes(one_gpu(), oom_pods(), mps(2, 1.0), {});
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[0].status, PodStatus::kFailed);
  EXPECT_EQ(r.reason_of(0), "MPS neighbour fault");
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 10.0);
  EXPECT_EQ(r.summary.neighbour_failures, 1U);
  EXPECT_EQ(r.summary.failed, 2U);
  EXPECT_EQ(r.summary.not_placed_reasons.at("MPS neighbour fault"), 1U);
  // a ran 10 s at exactly its promised share: isolation error 0.
  EXPECT_DOUBLE_EQ(r.pods[0].isolation_error, 0.0);
}

TEST(SimMpsEngine, FaultStaysOnItsGpuAndFreedSlotsAreReused) {
  // Two GPUs, 2 replicas each; first-fit: a and c fill GPU 0, d goes to GPU 1, and b joins d
  // at t=10, overflows its limit and takes d down. a and c (GPU 0) are untouched; e (t=20)
  // finds GPU 1's slots free again.
  const auto r = run_with_classes(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
                                  {pod("a", 0, 100).gpu_mem(1000), pod("c", 1, 100).gpu_mem(1000),
                                   pod("d", 2, 100).gpu_mem(1000), pod("b", 10, 100).gpu_mem(50000),
                                   pod("e", 20, 50).gpu_mem(1000)},
                                  mps(2, 1.0), {});
  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[1].status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[2].status, PodStatus::kFailed);
  EXPECT_EQ(r.reason_of(2), "MPS neighbour fault");
  EXPECT_EQ(r.pods[3].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[4].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.pods[4].start_s, 20.0);
  EXPECT_EQ(r.summary.neighbour_failures, 1U);
}

TEST(SimMpsEngine, ClientFaultProbabilityOneFailsEveryClientAtStart) {
  const SharingConfig c = mps(2, 0.0, {}, 1.0);
  const auto r = run_with_classes(one_gpu(), {pod("a", 0, 10), pod("b", 1, 10)}, c, {});
  for (const auto& o : r.pods) {
    EXPECT_EQ(o.status, PodStatus::kFailed);
    EXPECT_EQ(r.reasons[o.reason], "mps client fault (modelled, probability 1)");
  }
  EXPECT_EQ(r.summary.not_placed_reasons.at("client fault (modelled)"), 2U);
}

TEST(SimMpsEngine, InterferenceSlowsCoLocatedClientsAndIsReportedAsIsolationError) {
  // Class "bw": sm 0.5, bandwidth 0.5; a = 0.8. Per-pod limits of 500 milli each.
  // Both run from t=0 at 1/1.2 until a (60 s of work) ends at 72; b then runs alone at 1:
  // b has 100 - 60 = 40 s left, ends at 112. a's error 0.5 - 0.5/1.2 all the way; b's is
  // that for 72 s and 0 for 40 s.
  const WorkloadClasses classes({{"bw", 0.5, 0.5, 0.0, 0}});
  const auto r = run_with_classes(
      one_gpu(),
      {classed(pod("a", 0, 60).milli(500), "bw"), classed(pod("b", 0, 100).milli(500), "bw")},
      mps(0, 0.5, {0.8, 0.0}), classes);
  EXPECT_NEAR(r.pods[0].finish_s, 72.0, 1e-9);
  EXPECT_NEAR(r.pods[1].finish_s, 112.0, 1e-9);
  const double e = 0.5 - 0.5 / 1.2;
  EXPECT_NEAR(r.pods[0].isolation_error, e, 1e-12);
  EXPECT_NEAR(r.pods[1].isolation_error, e * 72.0 / 112.0, 1e-12);
  EXPECT_EQ(r.summary.isolation_error.count, 2U);
  EXPECT_NEAR(r.summary.isolation_error.max, e, 1e-12);
}

}  // namespace
}  // namespace slicelab
