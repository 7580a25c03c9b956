// Pins down GpuTenantTable: slots keep arrival order, one GPU is solved as the one-GPU solver
// does, and GPUs linked by a multi-GPU pod are one problem (the multi-GPU rule), on values
// computed by hand.
#include "sim/engine/gpu_tenant_table.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim/modes/time_slice/time_slice.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::node_group;

// Records what the table tells the engine, in order.
class RecordingListener final : public RateChangeListener {
 public:
  void before_rate_change(uint32_t pod) override { calls.emplace_back('b', pod); }
  void rate_changed(uint32_t pod) override { calls.emplace_back('r', pod); }
  std::vector<std::pair<char, uint32_t>> calls;
};

// One node of `gpus` A100s; pod i runs on pod_gpus[i] (indices on the node) at demand 1.
struct TableFixture {
  TableFixture(int gpus, const SharingMode& mode, std::vector<std::vector<GpuId>> gpus_by_pod)
      : cluster(cluster_of({node_group("n", 1, "A100-80GB", gpus)}), catalog(),
                mode.capacity_units()),
        table(mode, cluster),
        pod_gpus(std::move(gpus_by_pod)) {
    table.prepare(pod_gpus.size());
  }
  // Pod p starts at demand 1 (a whole GPU's SM time) on its GPUs of relative speed `speed`.
  uint32_t begin(uint32_t p, double speed) {
    return table.start(p, pod_gpus[p], TenantLoad{}, 1.0, speed);
  }
  // Starts pod p (speed 1) as a tenant of its GPUs and solves them.
  void start(uint32_t p) {
    begin(p, 1.0);
    for (const GpuId g : table.gpus_of(p)) table.add(g, p);
    table.recompute(table.gpus_of(p), run, listener);
  }
  std::vector<GpuId> recomputed() const {
    return {table.recomputed().begin(), table.recomputed().end()};
  }

  ClusterState cluster;
  GpuTenantTable table;
  std::vector<std::vector<GpuId>> pod_gpus;
  SharingRun run;
  RecordingListener listener;
};

TEST(SimGpuTenantTable, RemovalKeepsTheOthersInArrivalOrder) {
  const TimeSlice ts(4, 0.0);
  TableFixture f(1, ts, {{0}, {0}, {0}});
  for (uint32_t p = 0; p < 3; ++p) f.table.add(0, p);
  f.table.remove(0, 1);
  const auto t = f.table.tenants(0);
  EXPECT_EQ(std::vector<uint32_t>(t.begin(), t.end()), (std::vector<uint32_t>{0, 2}));
}

TEST(SimGpuTenantTable, ARetiredPodsSlotIsReusedWithFreshState) {
  const TimeSlice ts(4, 0.0);
  TableFixture f(1, ts, {{0}, {0}, {0}});
  const uint32_t first = f.begin(0, 2.0), second = f.begin(1, 1.0);
  EXPECT_NE(first, second);
  f.table.run_alone(0);
  f.table.retire(0);
  // Pod 2 takes pod 0's slot, at rate 0 and no error until solved; no slot is added.
  EXPECT_EQ(f.begin(2, 1.0), first);
  EXPECT_EQ(f.table.slot(2), first);
  EXPECT_EQ(f.table.slots(), 2U);
  EXPECT_EQ(f.table.rate(2), 0.0);
  EXPECT_EQ(f.table.error(2), -1.0);
}

TEST(SimGpuTenantTable, ASlotHoldsItsPodAndItsGpusUntilReused) {
  const TimeSlice ts(4, 0.0);
  TableFixture f(4, ts, {{0, 1}, {2}, {1, 2, 3}});
  const uint32_t s0 = f.begin(0, 1.0), s1 = f.begin(1, 1.0);
  EXPECT_EQ(f.table.pod_in(s0), 0U);
  EXPECT_EQ(f.table.pod_in(s1), 1U);
  EXPECT_EQ(std::vector<GpuId>(f.table.gpus_of(0).begin(), f.table.gpus_of(0).end()),
            (std::vector<GpuId>{0, 1}));
  f.table.retire(0);
  // Pod 2 takes pod 0's slot with three GPUs; pod 1's slot keeps its own.
  EXPECT_EQ(f.begin(2, 1.0), s0);
  EXPECT_EQ(f.table.pod_in(s0), 2U);
  EXPECT_EQ(std::vector<GpuId>(f.table.gpus_of(2).begin(), f.table.gpus_of(2).end()),
            (std::vector<GpuId>{1, 2, 3}));
  EXPECT_EQ(std::vector<GpuId>(f.table.gpus_of(1).begin(), f.table.gpus_of(1).end()),
            (std::vector<GpuId>{2}));
}

TEST(SimGpuTenantTable, OneGpuGivesTheOneGpuSolversRatesAndTellsTheListener) {
  // Two tenants of demand 1 on 1 - 0.1 of GPU time: 0.45 each. The first alone ran at 1.
  const TimeSlice ts(2, 0.1);
  TableFixture f(1, ts, {{0}, {0}});
  f.start(0);
  EXPECT_DOUBLE_EQ(f.table.rate(0), 1.0);
  f.listener.calls.clear();
  f.start(1);
  EXPECT_NEAR(f.table.rate(0), 0.45, 1e-15);
  EXPECT_NEAR(f.table.rate(1), 0.45, 1e-15);
  // Each pod: its progress settles at the old rate, then its finish moves.
  const std::vector<std::pair<char, uint32_t>> want{{'b', 0}, {'r', 0}, {'b', 1}, {'r', 1}};
  EXPECT_EQ(f.listener.calls, want);
  EXPECT_EQ(f.recomputed(), (std::vector<GpuId>{0}));
  // Time-slice promises nothing: no isolation error.
  EXPECT_EQ(f.table.error(0), -1.0);
}

TEST(SimGpuTenantTable, SpeedScalesTheRateButNotTheUsage) {
  const TimeSlice ts(2, 0.0);
  TableFixture f(1, ts, {{0}, {0}});
  f.begin(0, 2.0);
  f.table.add(0, 0);
  f.begin(1, 1.0);
  f.table.add(0, 1);
  const std::vector<GpuId> g0{0};
  f.table.recompute(g0, f.run, f.listener);
  // Shares 0.5 each; pod 0 progresses twice as fast on its GPU; the GPU delivers 0.5 + 0.5.
  EXPECT_DOUBLE_EQ(f.table.rate(0), 1.0);
  EXPECT_DOUBLE_EQ(f.table.rate(1), 0.5);
  EXPECT_DOUBLE_EQ(f.table.usage(0).sm, 1.0);
}

TEST(SimGpuTenantTable, MultiGpuPodSlowedOnOneGpuFreesItsShareOnTheOther) {
  // Time-slice, 3 replicas, no overhead. A (pod 0) spans GPUs 0 and 1; B1, B2 on GPU 0; C on
  // GPU 1; all of demand 1. GPU 0 holds 3 tenants: 1/3 each, so A runs at 1/3. On GPU 1, A
  // then uses 1/3 and C gets the rest: 2/3 (solved per GPU, C would get 1/2 and 1/6 of GPU 1
  // would be lost).
  const TimeSlice ts(3, 0.0);
  TableFixture f(2, ts, {{0, 1}, {0}, {0}, {1}});
  f.start(1);
  f.start(2);
  f.start(3);
  EXPECT_EQ(f.recomputed(), (std::vector<GpuId>{1}));  // not linked to GPU 0 yet
  f.start(0);
  EXPECT_EQ(f.recomputed(), (std::vector<GpuId>{0, 1}));
  EXPECT_NEAR(f.table.rate(0), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(f.table.rate(1), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(f.table.rate(2), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(f.table.rate(3), 2.0 / 3.0, 1e-15);
  // Both GPUs deliver all their time: 3 x 1/3, and 1/3 + 2/3.
  EXPECT_NEAR(f.table.usage(0).sm, 1.0, 1e-15);
  EXPECT_NEAR(f.table.usage(1).sm, 1.0, 1e-15);

  // A leaves: the GPUs are no longer linked and each is solved on its own: 1/2, 1/2 and 1.
  for (const GpuId g : f.table.gpus_of(0)) f.table.remove(g, 0);
  f.table.recompute(f.table.gpus_of(0), f.run, f.listener);
  EXPECT_EQ(f.recomputed(), (std::vector<GpuId>{0, 1}));
  EXPECT_DOUBLE_EQ(f.table.rate(1), 0.5);
  EXPECT_DOUBLE_EQ(f.table.rate(2), 0.5);
  EXPECT_DOUBLE_EQ(f.table.rate(3), 1.0);
}

TEST(SimGpuTenantTable, ComponentsReachThroughChainsOfMultiGpuPods) {
  // A on GPUs 0,1 and D on GPUs 1,2 link GPUs 0..2; GPU 3 (E) stays apart. Demand 1 each,
  // 2 replicas: GPU 1 holds A and D, 1/2 each, and GPUs 0 and 2 give A and D no more than that
  // (their pace is set on GPU 1); E alone runs at 1.
  const TimeSlice ts(2, 0.0);
  TableFixture f(4, ts, {{0, 1}, {1, 2}, {3}});
  f.start(2);
  f.start(0);
  f.start(1);
  EXPECT_EQ(f.recomputed(), (std::vector<GpuId>{1, 0, 2}));
  EXPECT_DOUBLE_EQ(f.table.rate(0), 0.5);
  EXPECT_DOUBLE_EQ(f.table.rate(1), 0.5);
  EXPECT_DOUBLE_EQ(f.table.rate(2), 1.0);
  // GPU 0 delivers A's half; GPU 1 both halves.
  EXPECT_DOUBLE_EQ(f.table.usage(0).sm, 0.5);
  EXPECT_DOUBLE_EQ(f.table.usage(1).sm, 1.0);
}

// Bounds each tenant by its SM cap and counts its declarations, so a test sees when the table
// solved a lone pod anew and when it reused what it solved before.
class CappedMode final : public SharingMode {
 public:
  std::string_view kind() const override { return "capped"; }
  std::string describe() const override { return "capped"; }
  int capacity_units() const override { return 1; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return 2; }
  bool isolates_memory() const override { return true; }
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override {
    ++declared;
    for (size_t k = 0; k < tenants.size(); ++k) terms[k].bound = tenants[k].sm_cap;
    return {};
  }
  mutable int declared = 0;
};

// GPU g's tenants are capped at caps[g].
class PerGpuCaps final : public SharingRun {
 public:
  explicit PerGpuCaps(std::vector<double> caps) : caps_(std::move(caps)) {}
  void apply_sm_caps(GpuId g, std::span<const uint32_t> /*pods*/,
                     std::span<TenantLoad> loads) const override {
    for (TenantLoad& l : loads) l.sm_cap = caps_[g];
  }

 private:
  std::vector<double> caps_;
};

TEST(SimGpuTenantTable, LonePodsReuseTheSolutionOfTheirLoadAfterTheirGpusCaps) {
  const CappedMode mode;
  const ClusterState cluster(cluster_of({node_group("n", 1, "A100-80GB", 4)}), catalog(), 1);
  GpuTenantTable table(mode, cluster);
  const PerGpuCaps run({1.0, 0.5, 0.5, 0.25});
  RecordingListener listener;
  table.prepare(64);
  uint32_t next = 0;
  auto start = [&](std::vector<GpuId> gpus, double demand) {
    const uint32_t p = next++;
    TenantLoad load;
    load.sm_demand = demand;
    table.start(p, gpus, load, demand, 1.0);
    for (const GpuId g : gpus) table.add(g, p);
    table.recompute(gpus, run, listener);
    return p;
  };
  auto stop = [&](uint32_t p) {
    const std::vector<GpuId> gpus(table.gpus_of(p).begin(), table.gpus_of(p).end());
    for (const GpuId g : gpus) table.remove(g, p);
    table.recompute(gpus, run, listener);
    table.retire(p);
  };
  // Demand 1 alone on GPU 0 (cap 1): rate 1; on GPU 1 (cap 0.5): 0.5, not GPU 0's answer.
  const uint32_t a = start({0}, 1.0);
  const uint32_t b = start({1}, 1.0);
  EXPECT_DOUBLE_EQ(table.rate(a), 1.0);
  EXPECT_DOUBLE_EQ(table.rate(b), 0.5);
  EXPECT_EQ(mode.declared, 2);
  // The same load after the same cap on GPU 2: GPU 1's answer, with no declaration.
  const uint32_t c = start({2}, 1.0);
  EXPECT_DOUBLE_EQ(table.rate(c), 0.5);
  EXPECT_EQ(mode.declared, 2);
  for (const uint32_t p : {a, b, c}) stop(p);
  // Alone on GPUs 1 and 2 (both capped at 0.5): one GPU's load, but a two-GPU problem.
  const uint32_t d = start({1, 2}, 1.0);
  EXPECT_DOUBLE_EQ(table.rate(d), 0.5);
  EXPECT_EQ(mode.declared, 4);
  stop(d);
  // Alone on GPUs 2 and 3 under different caps: solved as a whole, at its slowest GPU's pace.
  const uint32_t e = start({2, 3}, 1.0);
  EXPECT_DOUBLE_EQ(table.rate(e), 0.25);
  EXPECT_EQ(mode.declared, 6);
  stop(e);
  // More distinct loads than the memo holds: each is solved, and the first again when asked.
  for (int i = 1; i <= 20; ++i) {
    const double demand = 0.01 * i;
    const uint32_t p = start({0}, demand);
    EXPECT_DOUBLE_EQ(table.rate(p), 1.0) << i;
    stop(p);
  }
  EXPECT_EQ(mode.declared, 26);
  const uint32_t f = start({0}, 0.01);
  EXPECT_DOUBLE_EQ(table.rate(f), 1.0);
  EXPECT_EQ(mode.declared, 27);
  // A neighbour ends the pod's solitude: both are solved together (cap 1, demand 1 + 0.01).
  const uint32_t g = start({0}, 1.0);
  EXPECT_DOUBLE_EQ(table.rate(f) * 0.01 + table.rate(g), 1.0);
  EXPECT_EQ(mode.declared, 28);
}

}  // namespace
}  // namespace slicelab
