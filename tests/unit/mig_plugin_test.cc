// Pins down MIG's placement plugin on hand-built two-node clusters: the PreFilter's node set per
// pass, the PostFilter's second pass, Reserve (GPUs, claim, delay) and an idempotent Unreserve.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/modes/mig/mig_plugin.h"
#include "sim/modes/mig/mig_run.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/modes/mig/mig_state.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "sim/sharing/sharing_run.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace mig_plugin_test {

using testing::catalog;
using testing::cluster_of;
using testing::node_group;

constexpr int64_t kGi = 1024;

MigSettings static_layout(std::vector<std::pair<std::string, int>> devices) {
  MigSettings s;
  s.layout = "test";
  MigDeviceRule rule;
  rule.mig_devices = std::move(devices);
  s.rules.push_back(rule);
  return s;
}

MigSettings dynamic_mig(double reconfigure_s) {
  MigSettings s;
  s.dynamic = true;
  s.reconfigure_s = reconfigure_s;
  return s;
}

PodSpec gpu_pod(int milli, int64_t gpu_memory_mib, int gpus = 1) {
  PodSpec p;
  p.gpu_count = gpus;
  p.gpu_milli = milli;
  p.gpu_memory_mib = gpu_memory_mib;
  return p;
}

// Two nodes "n-0" and "n-1", one A100-80GB each, the run's pods with their requests as the
// engine prepares them under MIG (claim 1 until an instance is reserved), the state and plugin.
struct Bench {
  Bench(const MigSettings& mig, std::vector<PodSpec> pod_specs)
      : settings(mig),
        spec(cluster_of({node_group("n", 2, "A100-80GB", 1)})),
        cluster(spec, catalog(), 28),
        pods(std::move(pod_specs)) {
    for (const PodSpec& p : pods) {
      PodRequest r;
      r.gpu_count = p.gpu_count;
      r.gpu_milli = p.gpu_count > 0 ? p.gpu_milli : 0;
      r.gpu_memory_mib = p.gpu_memory_mib;
      r.claim_units = p.gpu_count > 0 ? 1 : 0;
      reqs.push_back(r);
    }
    state = std::make_unique<MigState>(cluster, catalog(), settings, pods, reqs);
    plugin = std::make_unique<MigPlugin>(*state, pods.size());
  }

  SchedulingCycle cycle(uint32_t pod, int pass = 0, double now = 0) {
    SchedulingCycle c{cluster, reqs[pod], pod, now, rng};
    c.pass = pass;
    return c;
  }
  std::vector<NodeId> pre_filtered(uint32_t pod, int pass, bool* possible = nullptr) {
    std::vector<NodeId> nodes{0, 1};
    const bool ok = plugin->pre_filter(cycle(pod, pass), nodes);
    if (possible) *possible = ok;
    return nodes;
  }
  int free_1g(NodeId n, uint32_t pod) const { return state->usable_gpus(n, pod, 0); }

  MigSettings settings;
  ClusterSpec spec;
  ClusterState cluster;
  std::vector<PodSpec> pods;
  std::vector<PodRequest> reqs;
  Rng rng{1};
  std::unique_ptr<MigState> state;
  std::unique_ptr<MigPlugin> plugin;
};

// A reserve plugin that refuses every pod: binding "fails" after MIG reserved.
class Refuses final : public ReservePlugin {
 public:
  std::string_view name() const override { return "refuses"; }
  bool reserve(const SchedulingCycle& /*cycle*/, NodeId /*node*/,
               std::span<GpuId> /*gpus*/) override {
    return false;
  }
  void unreserve(const SchedulingCycle& /*cycle*/, NodeId /*node*/,
                 std::span<const GpuId> /*gpus*/) override {
    ++unreserved;
  }
  int unreserved = 0;
};

TEST(MigPlugin, PreFilterKeepsNodesWithAFreeInstanceOfTheProfile) {
  // Each GPU: one 1g.10gb and one 2g.20gb. Pods 0 and 1 take a 1g; pod 2 is CPU-only; pod 3
  // wants two GPUs (each node has one); pod 4 needs 30 GiB: 3g.40gb, in no layout.
  Bench b(static_layout({{"1g.10gb", 1}, {"2g.20gb", 1}}),
          {gpu_pod(100, 5 * kGi), gpu_pod(100, 5 * kGi), gpu_pod(0, 0, 0), gpu_pod(100, 5 * kGi, 2),
           gpu_pod(300, 30 * kGi)});
  EXPECT_EQ(b.pre_filtered(1, 0), (std::vector<NodeId>{0, 1}));
  std::array<GpuId, 1> g{};
  ASSERT_TRUE(b.plugin->reserve(b.cycle(0), 0, g));
  EXPECT_EQ(b.pre_filtered(1, 0), std::vector<NodeId>{1});       // n-0's only 1g is taken
  EXPECT_EQ(b.pre_filtered(2, 0), (std::vector<NodeId>{0, 1}));  // CPU-only: untouched
  bool possible = true;
  EXPECT_TRUE(b.pre_filtered(3, 0, &possible).empty());
  EXPECT_FALSE(possible);
  EXPECT_TRUE(b.pre_filtered(4, 0, &possible).empty());
  EXPECT_FALSE(possible);
}

TEST(MigPlugin, PostFilterAsksForTheReconfigurationPassOnlyUnderDynamicMig) {
  Bench dyn(dynamic_mig(60), {gpu_pod(100, 5 * kGi), gpu_pod(0, 0, 0)});
  // No instances yet: nothing usable on pass 0, both GPUs can be re-partitioned on pass 1.
  bool possible = true;
  EXPECT_TRUE(dyn.pre_filtered(0, 0, &possible).empty());
  EXPECT_FALSE(possible);
  EXPECT_TRUE(dyn.plugin->post_filter(dyn.cycle(0, 0)));
  EXPECT_EQ(dyn.pre_filtered(0, 1), (std::vector<NodeId>{0, 1}));
  EXPECT_FALSE(dyn.plugin->post_filter(dyn.cycle(0, 1)));  // one more pass, not forever
  EXPECT_FALSE(dyn.plugin->post_filter(dyn.cycle(1, 0)));  // a CPU-only pod has no instance

  Bench fixed(static_layout({{"1g.10gb", 1}}), {gpu_pod(100, 5 * kGi)});
  EXPECT_FALSE(fixed.plugin->post_filter(fixed.cycle(0, 0)));
}

TEST(MigPlugin, ReserveTakesTheInstanceAndRewritesTheClaim) {
  Bench b(static_layout({{"1g.10gb", 1}, {"2g.20gb", 1}}), {gpu_pod(200, 15 * kGi)});
  std::array<GpuId, 1> g{GpuId{99}};
  ASSERT_TRUE(b.plugin->reserve(b.cycle(0), 1, g));
  EXPECT_EQ(g[0], b.cluster.first_gpu(1));  // the picker's choice is replaced by MIG's
  EXPECT_EQ(b.reqs[0].claim_units, 8);      // 2g of the A100's 7 slices: 2 * 28 / 7 units
  EXPECT_TRUE(b.plugin->holds(0));
  EXPECT_EQ(b.state->instance_name(g[0], 0), "2g.20gb@0");
  EXPECT_DOUBLE_EQ(b.plugin->start_delay_s(0), 0.0);  // a static layout: starts at once
}

TEST(MigPlugin, ReserveOnTheSecondPassRepartitionsAndRemembersTheDelay) {
  Bench b(dynamic_mig(45), {gpu_pod(100, 5 * kGi)});
  std::array<GpuId, 1> g{};
  EXPECT_FALSE(b.plugin->reserve(b.cycle(0, 0), 0, g));  // pass 0: no instance to take
  EXPECT_EQ(b.state->reconfigurations(), 0U);
  ASSERT_TRUE(b.plugin->reserve(b.cycle(0, 1), 0, g));
  EXPECT_EQ(b.state->reconfigurations(), 1U);
  EXPECT_DOUBLE_EQ(b.plugin->start_delay_s(0), 45.0);
  EXPECT_EQ(b.reqs[0].claim_units, 4);  // 1g: 28 / 7
}

TEST(MigPlugin, UnreserveGivesTheInstanceBackAndTwiceIsHarmless) {
  // Two 1g.10gb per GPU. Pods 0 and 1 take n-0's two; pod 0 is unreserved twice: its instance is
  // free once (not twice), pod 1 keeps its own.
  Bench b(static_layout({{"1g.10gb", 2}}),
          {gpu_pod(100, 5 * kGi), gpu_pod(100, 5 * kGi), gpu_pod(100, 5 * kGi)});
  std::array<GpuId, 1> g{}, g1{};
  ASSERT_TRUE(b.plugin->reserve(b.cycle(0), 0, g));
  ASSERT_TRUE(b.plugin->reserve(b.cycle(1), 0, g1));
  EXPECT_EQ(b.free_1g(0, 2), 0);
  b.plugin->unreserve(b.cycle(0), 0, g);
  EXPECT_FALSE(b.plugin->holds(0));
  EXPECT_EQ(b.free_1g(0, 2), 1);
  EXPECT_EQ(b.reqs[0].claim_units, 1);  // back to the engine's lower bound
  b.plugin->unreserve(b.cycle(0), 0, g);
  b.plugin->release(0, g);  // the pod-end path after an unreserve: nothing left to give back
  EXPECT_EQ(b.reqs[0].claim_units, 1);
  EXPECT_TRUE(b.plugin->holds(1));
  EXPECT_EQ(b.reqs[1].claim_units, 4);
  EXPECT_EQ(b.state->instance_name(g1[0], 1), "1g.10gb@1");
  // Free now: one 1g on n-0 and two on n-1, 3/7 of a GPU, all stranded once no pod waits.
  for (uint32_t p = 0; p < 3; ++p) b.state->pod_left_queue(p);
  EXPECT_NEAR(b.state->stranded_gpus(), 3.0 / 7.0, 1e-12);
  // The instance is whole again: pod 2 takes it.
  ASSERT_TRUE(b.plugin->reserve(b.cycle(2), 0, g));
  EXPECT_EQ(b.free_1g(0, 0), 0);
}

TEST(MigPlugin, ARejectedReserveHoldsNoInstance) {
  // n-0's only 1g is held by pod 0: reserving pod 1 there is refused and changes nothing.
  Bench b(static_layout({{"1g.10gb", 1}}), {gpu_pod(100, 5 * kGi), gpu_pod(100, 5 * kGi)});
  std::array<GpuId, 1> g{};
  ASSERT_TRUE(b.plugin->reserve(b.cycle(0), 0, g));
  EXPECT_FALSE(b.plugin->reserve(b.cycle(1), 0, g));
  EXPECT_FALSE(b.plugin->holds(1));
  EXPECT_EQ(b.reqs[1].claim_units, 1);
  EXPECT_EQ(b.free_1g(1, 1), 1);
  b.plugin->unreserve(b.cycle(1), 0, g);  // the framework's rollback of a refusal: harmless
  EXPECT_TRUE(b.plugin->holds(0));
  EXPECT_EQ(b.free_1g(0, 1), 0);
}

TEST(MigPlugin, ScheduleRollsMigBackWhenALaterReservePluginRefuses) {
  Bench b(static_layout({{"1g.10gb", 1}}), {gpu_pod(100, 5 * kGi)});
  PlacementPolicy policy = build_placement(*placement_preset("first-fit"));
  Refuses refuses;
  policy.attach(RunPlugins{{b.plugin.get()}, {}, {b.plugin.get()}, {b.plugin.get(), &refuses}});
  std::array<GpuId, 1> g{};
  auto c = b.cycle(0);
  EXPECT_FALSE(policy.schedule(c, g).has_value());
  EXPECT_EQ(refuses.unreserved, 1);
  EXPECT_FALSE(b.plugin->holds(0));
  EXPECT_EQ(b.free_1g(0, 0), 1);
  EXPECT_EQ(b.free_1g(1, 0), 1);
  EXPECT_EQ(b.reqs[0].claim_units, 1);

  // Without the refusal the same cycle places it on the first node, on its instance.
  policy.attach(RunPlugins{{b.plugin.get()}, {}, {b.plugin.get()}, {b.plugin.get()}});
  auto again = b.cycle(0);
  const auto node = policy.schedule(again, g);
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(*node, NodeId{0});
  EXPECT_TRUE(b.plugin->holds(0));
  EXPECT_EQ(b.reqs[0].claim_units, 4);
}

TEST(MigPlugin, ScheduleRepartitionsOnlyAfterThePlainPassFails) {
  // Dynamic MIG from a layout: n-0 and n-1 each hold a 1g.10gb. Pod 0 takes n-0's without a
  // re-partitioning (pass 0); pods 1 and 2 then find n-1's, then re-partition (pass 1).
  MigSettings s = static_layout({{"1g.10gb", 1}});
  s.dynamic = true;
  s.reconfigure_s = 30;
  Bench b(s, {gpu_pod(100, 5 * kGi), gpu_pod(100, 5 * kGi), gpu_pod(100, 5 * kGi)});
  PlacementPolicy policy = build_placement(*placement_preset("first-fit"));
  policy.attach(RunPlugins{{b.plugin.get()}, {}, {b.plugin.get()}, {b.plugin.get()}});
  std::array<GpuId, 1> g{};
  for (uint32_t p = 0; p < 3; ++p) {
    auto c = b.cycle(p);
    ASSERT_TRUE(policy.schedule(c, g).has_value()) << p;
    std::array<GpuId, 1> bound = g;
    b.cluster.bind(b.cluster.node_of(g[0]), bound, b.reqs[p]);
  }
  EXPECT_DOUBLE_EQ(b.plugin->start_delay_s(0), 0.0);
  EXPECT_DOUBLE_EQ(b.plugin->start_delay_s(1), 0.0);
  EXPECT_DOUBLE_EQ(b.plugin->start_delay_s(2), 30.0);
  EXPECT_EQ(b.state->reconfigurations(), 1U);
}

TEST(MigPlugin, TheMigModeStartsARunWithItsPluginAndInstanceFigures) {
  Bench b(static_layout({{"1g.10gb", 1}, {"3g.40gb", 1}}), {gpu_pod(100, 5 * kGi)});
  SharingConfig config;
  config.kind = "mig";
  config.set_mode_settings(std::make_shared<MigSettings>(b.settings));
  const auto mode = make_sharing_mode(config);
  const auto run = mode->start_run(RunSetup{b.cluster, catalog(), b.pods, b.reqs});
  const RunPlugins plugins = run->plugins();
  ASSERT_EQ(plugins.pre_filters.size(), 1U);
  EXPECT_EQ(plugins.pre_filters[0]->name(), "mig");
  ASSERT_EQ(plugins.post_filters.size(), 1U);
  ASSERT_EQ(plugins.reserves.size(), 1U);
  EXPECT_TRUE(plugins.filters.empty());
  EXPECT_FALSE(run->equal_requests_fit_alike());

  std::array<GpuId, 1> g{};
  auto c = b.cycle(0);
  ASSERT_TRUE(plugins.reserves[0]->reserve(c, 0, g));
  EXPECT_EQ(run->partition_memory_mib(g[0], 0), 9984);  // 1g.10gb on an A100-80GB
  EXPECT_EQ(run->partition_name(g[0], 0), "MIG instance 1g.10gb@4");
  std::array<TenantLoad, 1> loads{};
  const std::array<uint32_t, 1> tenants{0};
  run->apply_sm_caps(g[0], tenants, loads);
  EXPECT_DOUBLE_EQ(loads[0].sm_cap, 14.0 / 108.0);  // 14 of the A100's 108 SMs
  // Free: n-0's 3g (3/7), n-1's 1g and 3g (4/7); no pod is waiting, so all of it is stranded.
  run->pod_left_queue(0);
  EXPECT_NEAR(run->stranded_gpus(), 1.0, 1e-12);
  RunSummary summary;
  run->write_results(summary, 50.0, 200.0);
  ASSERT_TRUE(summary.mode_results.figure("mig.stranded_ratio").has_value());
  EXPECT_DOUBLE_EQ(*summary.mode_results.figure("mig.stranded_ratio"), 0.25);
  std::vector<NodeId> nodes{0, 1};
  EXPECT_TRUE(plugins.pre_filters[0]->pre_filter(b.cycle(0), nodes));
  EXPECT_EQ(nodes, std::vector<NodeId>{1});  // n-0's 1g is held
  run->release(0, g);                        // the pod ended
  nodes = {0, 1};
  EXPECT_TRUE(plugins.pre_filters[0]->pre_filter(b.cycle(0), nodes));
  EXPECT_EQ(nodes, (std::vector<NodeId>{0, 1}));
}

TEST(MigPlugin, OtherModesStartARunThatChangesNothing) {
  const auto mode = make_sharing_mode(testing::time_slice(2, 0.0));
  Bench b(static_layout({}), {gpu_pod(100, 0)});
  const auto run = mode->start_run(RunSetup{b.cluster, catalog(), b.pods, b.reqs});
  const RunPlugins plugins = run->plugins();
  EXPECT_TRUE(plugins.pre_filters.empty() && plugins.filters.empty() &&
              plugins.post_filters.empty() && plugins.reserves.empty());
  EXPECT_TRUE(run->equal_requests_fit_alike());
  EXPECT_EQ(run->partition_memory_mib(0, 0), -1);
  EXPECT_DOUBLE_EQ(run->start_delay_s(0), 0.0);
  EXPECT_FALSE(run->never_fits(0).has_value());
  RunSummary summary;
  run->write_results(summary, 1.0, 1.0);
  EXPECT_TRUE(summary.mode_results.figures.empty());
  EXPECT_TRUE(summary.mode_results.documents.empty());
  std::array<TenantLoad, 1> loads{};
  loads[0].sm_cap = 0.5;
  const std::array<uint32_t, 1> tenants{0};
  run->apply_sm_caps(0, tenants, loads);
  EXPECT_DOUBLE_EQ(loads[0].sm_cap, 0.5);
}

}  // namespace mig_plugin_test
}  // namespace slicelab
