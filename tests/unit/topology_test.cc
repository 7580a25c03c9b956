// Pins down the built-in GPU topologies (pair scores, NVLink islands, best totals), the
// communication-quality measure and the "topology" device picker, all against hand-computed sets.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/topology_picker.h"
#include "sim/topology/builtin_topologies.h"
#include "sim/topology/gpu_topology.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::node_group;
using testing::request;

std::shared_ptr<const GpuTopology> topo(std::string_view name) {
  auto t = builtin_topology(name);
  EXPECT_NE(t, nullptr) << name;
  return t;
}

// One node of `name`'s topology (plus a second node without one, for the fallback tests).
ClusterSpec one_node(std::string_view name, int capacity_gpus = 8) {
  NodeGroup g = node_group("n", 1, "A100-80GB", capacity_gpus);
  g.topology = topo(name);
  return cluster_of({g});
}

void occupy(ClusterState& s, NodeId n, std::vector<GpuId> local, int claim_units = 1) {
  std::vector<GpuId> gpus;
  for (const GpuId g : local) gpus.push_back(s.first_gpu(n) + g);
  PodRequest r = request(static_cast<int>(gpus.size()));
  r.claim_units = claim_units;
  s.bind(n, gpus, r);
}

// The picker's choice as local GPU indices, or {} when it refuses.
std::vector<GpuId> pick(const ClusterState& s, const PodRequest& req, NodeId n = 0) {
  TopologyDevicePicker picker;
  Rng rng(1);
  std::vector<GpuId> out(64, 9999);
  PodRequest r = req;
  if (!picker.pick(SchedulingCycle{s, r, 0, 0.0, rng}, n, out)) return {};
  std::vector<GpuId> local;
  for (int i = 0; i < req.gpu_count; ++i)
    local.push_back(out[static_cast<size_t>(i)] - s.first_gpu(n));
  return local;
}

using Gpus = std::vector<GpuId>;

// --- scores and graphs ---

TEST(Topology, LinkScoresAreNvidiasAllocatorScores) {
  EXPECT_EQ(link_score(LinkKind::kCrossCpu), 10);
  EXPECT_EQ(link_score(LinkKind::kSameCpu), 20);
  EXPECT_EQ(link_score(LinkKind::kHostBridge), 30);
  EXPECT_EQ(link_score(LinkKind::kMultiSwitch), 40);
  EXPECT_EQ(link_score(LinkKind::kSingleSwitch), 50);
  EXPECT_EQ(link_score(LinkKind::kSameBoard), 60);
  EXPECT_EQ(link_score(LinkKind::kNvLink, 1), 100);
  EXPECT_EQ(link_score(LinkKind::kNvLink, 18), 1800);
}

TEST(Topology, GraphIsCompleteWithScoresOnEdges) {
  const auto t = topo("hybrid-cube-mesh-8");
  EXPECT_EQ(t->gpu_count(), 8);
  EXPECT_EQ(boost::num_vertices(t->graph()), 8U);
  EXPECT_EQ(boost::num_edges(t->graph()), 28U);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      EXPECT_EQ(t->score(a, b), t->score(b, a));
      if (a != b) {
        EXPECT_EQ(t->link(a, b).score, t->score(a, b));
      }
    }
  EXPECT_EQ(t->score(3, 3), 0);
}

TEST(Topology, HybridCubeMeshIsDgx1) {
  const auto t = topo("hybrid-cube-mesh-8");
  // Doubled links, single links, and SYS for the 12 pairs without NVLink.
  for (const auto& [a, b] :
       {std::pair{0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {4, 7}, {5, 6}, {6, 7}})
    EXPECT_EQ(t->score(a, b), 200) << a << "-" << b;
  for (const auto& [a, b] :
       {std::pair{0, 1}, {0, 2}, {1, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 6}, {5, 7}})
    EXPECT_EQ(t->score(a, b), 100) << a << "-" << b;
  EXPECT_EQ(t->score(0, 5), 10);
  EXPECT_EQ(t->score(3, 4), 10);
  EXPECT_EQ(t->link(0, 5).kind, LinkKind::kCrossCpu);
  // Six NVLinks per GPU, as on a V100 SXM2.
  for (int a = 0; a < 8; ++a) {
    int links = 0;
    for (int b = 0; b < 8; ++b)
      if (a != b) links += t->link(a, b).nvlinks;
    EXPECT_EQ(links, 6) << a;
  }
  EXPECT_EQ(t->nvlink_component_count(), 1);
  // Quads 900 (nine links), best triple 500 (no triangle of doubled links), all: 16 NVLinked
  // pairs (2400) and 12 SYS pairs (120).
  EXPECT_EQ(t->best_total(2), 200);
  EXPECT_EQ(t->best_total(3), 500);
  EXPECT_EQ(t->best_total(4), 900);
  EXPECT_EQ(t->best_total(8), 2520);
  EXPECT_EQ(t->best_total(1), 0);
}

TEST(Topology, NvSwitchConnectsEveryPairWithEighteenLinks) {
  const auto t = topo("nvswitch-8");
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b) EXPECT_EQ(t->score(a, b), 1800);
  EXPECT_EQ(t->nvlink_component_count(), 1);
  EXPECT_EQ(t->best_total(4), 6 * 1800);
  EXPECT_EQ(t->best_total(8), 28 * 1800);
  EXPECT_EQ(topo("nvswitch-4")->gpu_count(), 4);
}

TEST(Topology, PcieDualSocketLevels) {
  const auto t = topo("pcie-dual-socket-8");
  EXPECT_EQ(t->score(0, 1), 50);  // same switch
  EXPECT_EQ(t->score(6, 7), 50);
  EXPECT_EQ(t->score(1, 2), 30);  // same socket, other switch
  EXPECT_EQ(t->score(4, 7), 30);
  EXPECT_EQ(t->score(3, 4), 10);  // other socket
  EXPECT_EQ(t->link(3, 4).kind, LinkKind::kCrossCpu);
  EXPECT_EQ(t->nvlink_component_count(), 8);  // no NVLink: every GPU alone
  EXPECT_EQ(t->best_total(2), 50);
  EXPECT_EQ(t->best_total(4), 50 + 50 + 4 * 30);
  EXPECT_EQ(t->best_total(8), 4 * 50 + 8 * 30 + 16 * 10);
}

TEST(Topology, NvLinkPairs) {
  const auto t = topo("nvlink-pairs-8");
  EXPECT_EQ(t->score(0, 1), 1200);
  EXPECT_EQ(t->score(6, 7), 1200);
  EXPECT_EQ(t->score(1, 2), 20);  // same socket
  EXPECT_EQ(t->score(3, 4), 10);  // other socket
  EXPECT_EQ(t->nvlink_component_count(), 4);
  const auto& c = t->nvlink_component();
  EXPECT_EQ(c[0], c[1]);
  EXPECT_NE(c[1], c[2]);
  EXPECT_EQ(t->best_total(4), 2 * 1200 + 4 * 20);
  EXPECT_EQ(topo("nvlink-pairs-4")->score(1, 2), 10);  // 4 GPUs: one pair per socket
}

TEST(Topology, UnknownOrBadlySizedNamesAreRejected) {
  for (const char* bad :
       {"nvswitch", "nvswitch-", "nvswitch-1", "nvswitch-65", "nvswitch-08", "nvswitch-8x",
        "nvlink-pairs-7", "pcie-dual-socket-6", "hybrid-cube-mesh-4", "dgx"})
    EXPECT_EQ(builtin_topology(bad), nullptr) << bad;
}

TEST(Topology, AsymmetricMatrixIsRejected) {
  std::vector<std::vector<GpuLink>> m(2, std::vector<GpuLink>(2));
  m[0][1] = {LinkKind::kNvLink, 2, 0};
  m[1][0] = {LinkKind::kNvLink, 1, 0};
  EXPECT_THROW(GpuTopology("x", m), std::invalid_argument);
}

// --- best subsets ---

TEST(TopologySubset, ExactSearchMatchesEnumeration) {
  // Every k-subset of every built-in 8-GPU layout: the search's total equals the maximum.
  for (const char* name :
       {"hybrid-cube-mesh-8", "nvswitch-8", "pcie-dual-socket-8", "nvlink-pairs-8"}) {
    const auto t = topo(name);
    for (int k = 2; k <= 8; ++k) {
      int64_t best = 0;
      for (unsigned mask = 0; mask < 256; ++mask) {
        if (__builtin_popcount(mask) != k) continue;
        std::vector<int> s;
        for (int i = 0; i < 8; ++i)
          if (mask & (1U << i)) s.push_back(i);
        best = std::max(best, t->total_score(s));
      }
      EXPECT_EQ(t->best_total(k), best) << name << " k=" << k;
    }
  }
}

TEST(TopologySubset, GreedyAboveTheExactLimit) {
  // 32 GPUs: above kExactLimit. Pairs of NVLink; the greedy search still finds a pair.
  const auto t = topo("nvlink-pairs-32");
  std::vector<int> all(32);
  std::iota(all.begin(), all.end(), 0);
  std::vector<int> out(32);
  EXPECT_EQ(best_subset(*t, all, 2, {}, out), 1200);
  EXPECT_EQ(out[0] / 2, out[1] / 2);
  EXPECT_EQ(best_subset(*t, all, 33, {}, out), -1);
}

// --- communication quality ---

TEST(CommunicationQuality, HandComputed) {
  const auto cube = topo("hybrid-cube-mesh-8");
  EXPECT_DOUBLE_EQ(communication_quality(*cube, std::vector<int>{0, 1, 2, 3}), 1.0);
  // {0,3,4,7}: 200 + 200 + 10 + 10 + 100 + 200 = 720 of 900.
  EXPECT_DOUBLE_EQ(communication_quality(*cube, std::vector<int>{0, 3, 4, 7}), 720.0 / 900.0);
  // A SYS pair against the best pair (NV2).
  EXPECT_DOUBLE_EQ(communication_quality(*cube, std::vector<int>{0, 5}), 10.0 / 200.0);
  const auto pcie = topo("pcie-dual-socket-8");
  EXPECT_DOUBLE_EQ(communication_quality(*pcie, std::vector<int>{0, 2}), 30.0 / 50.0);
  EXPECT_DOUBLE_EQ(communication_quality(*pcie, std::vector<int>{0, 1, 4, 5}), 140.0 / 220.0);
  // Every set is equally good on NVSwitch; one GPU or none is trivially 1.
  EXPECT_DOUBLE_EQ(communication_quality(*topo("nvswitch-8"), std::vector<int>{1, 4, 6}), 1.0);
  EXPECT_DOUBLE_EQ(communication_quality(*pcie, std::vector<int>{7}), 1.0);
  EXPECT_DOUBLE_EQ(communication_quality(*pcie, std::vector<int>{}), 1.0);
  // The whole node is by definition the best 8-set.
  EXPECT_DOUBLE_EQ(communication_quality(*pcie, std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0}), 1.0);
}

TEST(CommunicationQuality, RejectsBadIndices) {
  const auto t = topo("nvswitch-8");
  EXPECT_THROW(communication_quality(*t, std::vector<int>{0, 8}), std::invalid_argument);
  EXPECT_THROW(communication_quality(*t, std::vector<int>{-1}), std::invalid_argument);
  EXPECT_THROW(communication_quality(*t, std::vector<int>{2, 2}), std::invalid_argument);
}

// --- the picker, multi-GPU pods: highest total pair score ---

TEST(TopologyPicker, HybridCubeMeshGivesFourGpuPodsAQuad) {
  ClusterState s(one_node("hybrid-cube-mesh-8"), catalog(), 1);
  EXPECT_EQ(pick(s, request(4)), (Gpus{0, 1, 2, 3}));
  occupy(s, 0, {0});
  EXPECT_EQ(pick(s, request(4)), (Gpus{4, 5, 6, 7}));
  // Two GPUs: the first doubled-link pair; with 0 taken, 1-2 (NV2) beats 1-3 (NV1).
  EXPECT_EQ(pick(s, request(2)), (Gpus{1, 2}));
  occupy(s, 0, {4});
  // Left {1,2,3,5,6,7}: {1,2,3} and {5,6,7} both total 500; the first wins.
  EXPECT_EQ(pick(s, request(3)), (Gpus{1, 2, 3}));
}

TEST(TopologyPicker, HybridCubeMeshTwoGpusOnEmptyNode) {
  ClusterState s(one_node("hybrid-cube-mesh-8"), catalog(), 1);
  EXPECT_EQ(pick(s, request(2)), (Gpus{0, 3}));
}

TEST(TopologyPicker, PcieDualSocketGivesSameSwitchPairs) {
  ClusterState s(one_node("pcie-dual-socket-8"), catalog(), 1);
  occupy(s, 0, {0});
  // 2-3 share a switch (50); 1-2 only the host bridge (30), 1-4 nothing but SYS.
  EXPECT_EQ(pick(s, request(2)), (Gpus{2, 3}));
  // Four GPUs: socket 1 whole (220) beats {1,2,3} + anything (at most 50 + 2*30 + ...).
  EXPECT_EQ(pick(s, request(4)), (Gpus{4, 5, 6, 7}));
  occupy(s, 0, {2, 5});
  // Left {1,3,4,6,7}: only 6-7 share a switch.
  EXPECT_EQ(pick(s, request(2)), (Gpus{6, 7}));
}

TEST(TopologyPicker, NvLinkPairsKeepsPairsTogether) {
  ClusterState s(one_node("nvlink-pairs-8"), catalog(), 1);
  occupy(s, 0, {0});
  EXPECT_EQ(pick(s, request(2)), (Gpus{2, 3}));
  // Four: two bridged pairs on one socket (2480): {4,5,6,7}, not {2,3} + a lone card.
  EXPECT_EQ(pick(s, request(4)), (Gpus{4, 5, 6, 7}));
}

TEST(TopologyPicker, NvSwitchTakesLowestFreeGpus) {
  ClusterState s(one_node("nvswitch-8"), catalog(), 1);
  occupy(s, 0, {1, 3});
  EXPECT_EQ(pick(s, request(2)), (Gpus{0, 2}));
  EXPECT_EQ(pick(s, request(6)), (Gpus{0, 2, 4, 5, 6, 7}));
  EXPECT_EQ(pick(s, request(7)), Gpus{});  // only six free: refused
}

// --- the picker, one-GPU pods: the worst-connected free GPU ---

TEST(TopologyPicker, OneGpuTakesTheStrandedCardOfABrokenQuad) {
  ClusterState s(one_node("hybrid-cube-mesh-8"), catalog(), 1);
  occupy(s, 0, {0, 1, 2});
  // To the other idle GPUs: 3 -> 10+10+10+100 = 130; 4 -> 410; 5 -> 410; 6 -> 510; 7 -> 600.
  EXPECT_EQ(pick(s, request(1)), (Gpus{3}));
}

TEST(TopologyPicker, OneGpuPodsFillNvLinkPairsOneAtATime) {
  ClusterState s(one_node("nvlink-pairs-8"), catalog(), 1);
  // Empty node: every GPU is equally connected (1200 + 2*20 + 4*10) and every island has two
  // idle cards: the lowest index.
  EXPECT_EQ(pick(s, request(1)), (Gpus{0}));
  occupy(s, 0, {0});
  // GPU 1 lost its partner: 20 + 20 + 4*10 = 80, the others at least 1200.
  EXPECT_EQ(pick(s, request(1)), (Gpus{1}));
  occupy(s, 0, {1});
  occupy(s, 0, {4});
  EXPECT_EQ(pick(s, request(1)), (Gpus{5}));
}

TEST(TopologyPicker, OneGpuOnPcieTakesTheSwitchmateOfABusyCard) {
  ClusterState s(one_node("pcie-dual-socket-8"), catalog(), 1);
  occupy(s, 0, {0});
  // To the other idle GPUs: 1 -> 30+30+4*10 = 100; 2 and 3 -> 30+50+4*10 = 120;
  // 4..7 -> 3*10+50+30+30 = 140.
  EXPECT_EQ(pick(s, request(1)), (Gpus{1}));
}

TEST(TopologyPicker, OneGpuPrefersAPartlyUsedCard) {
  // Time-slice style: 2 units per GPU; GPU 5 holds one pod. Taking its second unit breaks no
  // idle GPU, so it goes first even though GPU 0 is no better connected than any other.
  ClusterState s(one_node("nvswitch-8"), catalog(), 2);
  occupy(s, 0, {5});
  PodRequest r = request(1);
  r.claim_units = 1;
  EXPECT_EQ(pick(s, r), (Gpus{5}));
  // Multi-GPU ties on score go to the fuller GPUs too.
  occupy(s, 0, {2});
  r.gpu_count = 2;
  EXPECT_EQ(pick(s, r), (Gpus{2, 5}));
}

TEST(TopologyPicker, FallsBackToBinpackWithoutTopology) {
  ClusterState s(cluster_of({node_group("plain", 1, "A100-80GB", 4)}), catalog(), 2);
  EXPECT_EQ(s.topology(0), nullptr);
  occupy(s, 0, {2});
  PodRequest r = request(1);
  r.claim_units = 1;
  EXPECT_EQ(pick(s, r), (Gpus{2}));  // binpack: the fullest GPU that fits
  EXPECT_EQ(pick(s, request(2, 0, 0, 0, 2)), (Gpus{0, 1}));
}

TEST(TopologyPicker, CpuOnlyPodNeedsNoGpu) {
  ClusterState s(one_node("nvswitch-8"), catalog(), 1);
  EXPECT_EQ(pick(s, request(0)), Gpus{});
  TopologyDevicePicker picker;
  Rng rng(1);
  std::vector<GpuId> out(1);
  PodRequest cpu_only = request(0);
  EXPECT_TRUE(picker.pick(SchedulingCycle{s, cpu_only, 0, 0.0, rng}, 0, out));
}

// --- the preset, end to end on a small cluster ---

TEST(TopologyAwarePreset, SpellsOutItsPlugins) {
  const auto c = placement_preset("topology-aware");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->picker, "topology");
  ASSERT_EQ(c->scorers.size(), 1U);
  EXPECT_EQ(c->scorers[0].first, "binpack");
  EXPECT_EQ(c->filters, placement_preset("best-fit")->filters);
  ASSERT_NE(make_picker("topology"), nullptr);
  EXPECT_NE(picker_names().find("topology"), std::string::npos);
}

TEST(TopologyAwarePreset, RunGivesQuadsWhereBestFitSplitsThem) {
  // One DGX-1: a one-GPU pod, then a 4-GPU training pod, then another 4-GPU one can't fit.
  // best-fit takes GPU 0 for the first and 1,2,3,4 for the second (a broken quad: 530 of 900);
  // topology-aware takes 0 too (all equal on an empty node), then the quad 4,5,6,7.
  NodeGroup g = node_group("dgx1", 1, "V100-32GB", 8);
  g.topology = topo("hybrid-cube-mesh-8");
  const ClusterSpec cluster = cluster_of({g});
  const std::vector<PodSpec> pods = {testing::pod("one", 0, 100),
                                     testing::pod("quad", 1, 100).gpus(4)};
  const RunResult bf = testing::run(cluster, pods, "best-fit");
  const RunResult ta = testing::run(cluster, pods, "topology-aware");
  EXPECT_EQ(testing::gpus_of(bf, 1), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(testing::gpus_of(ta, 0), (std::vector<int>{0}));
  EXPECT_EQ(testing::gpus_of(ta, 1), (std::vector<int>{4, 5, 6, 7}));
  const auto q = [&](const RunResult& r) {
    std::vector<int> local = testing::gpus_of(r, 1);
    return communication_quality(*g.topology, local);
  };
  EXPECT_DOUBLE_EQ(q(bf), 530.0 / 900.0);
  EXPECT_DOUBLE_EQ(q(ta), 1.0);
}

}  // namespace
}  // namespace slicelab
