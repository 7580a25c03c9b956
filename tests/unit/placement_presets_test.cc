// Pins down the placement presets (first-fit, best-fit/binpack, spread, random) on hand-built
// cluster states: which node and which GPUs each picks, and that every filter is respected.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/scorers.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::model_index;
using testing::node_group;
using testing::request;

struct Choice {
  std::optional<NodeId> node;
  std::vector<GpuId> gpus;
};

Choice place(std::string_view preset, const ClusterState& state, const PodRequest& req,
             uint64_t seed = 1) {
  PlacementPolicy policy = build_placement(*placement_preset(preset));
  Rng rng(seed);
  std::vector<GpuId> out(64, 9999);
  Choice c;
  c.node = testing::place_pod(policy, state, req, rng, out);
  if (c.node) c.gpus.assign(out.begin(), out.begin() + req.gpu_count);
  return c;
}

// Occupies the given GPUs of node n (whole units each, `times` pods) plus CPU.
void occupy(ClusterState& s, NodeId n, std::vector<GpuId> local_gpus, int64_t cpu = 0,
            int times = 1) {
  std::vector<GpuId> gpus;
  for (const GpuId g : local_gpus) gpus.push_back(s.first_gpu(n) + g);
  PodRequest r = request(static_cast<int>(gpus.size()));
  r.claim_units = 1;
  for (int k = 0; k < times; ++k) {
    r.cpu_milli = k == 0 ? cpu : 0;
    s.bind(n, gpus, r);
  }
}

const std::vector<std::string> kPresets = {"first-fit", "best-fit", "binpack", "spread", "random"};

// --- preset definitions ---

// The three built-in filters, in whatever order the presets run them (cheapest first is an
// optimisation, not a contract).
std::multiset<std::string> filter_set(const PlacementConfig& c) {
  return {c.filters.begin(), c.filters.end()};
}

std::string joined_filters(const PlacementConfig& c) {
  std::string out;
  for (const auto& f : c.filters) out += (out.empty() ? "" : ",") + f;
  return out;
}

TEST(SimPlacementPresets, PresetsSpellOutTheirPlugins) {
  const std::multiset<std::string> filters = {"gpu-model", "resources", "gpu-capacity"};
  const auto ff = placement_preset("first-fit");
  ASSERT_TRUE(ff.has_value());
  EXPECT_EQ(ff->preset, "first-fit");
  EXPECT_EQ(filter_set(*ff), filters);
  EXPECT_TRUE(ff->scorers.empty());
  EXPECT_EQ(ff->picker, "first");

  for (const char* name : {"best-fit", "binpack"}) {
    const auto bf = placement_preset(name);
    ASSERT_TRUE(bf.has_value()) << name;
    EXPECT_EQ(bf->preset, name);
    EXPECT_EQ(filter_set(*bf), filters);
    ASSERT_EQ(bf->scorers.size(), 1U);
    EXPECT_EQ(bf->scorers[0].first, "binpack");
    EXPECT_DOUBLE_EQ(bf->scorers[0].second, 1.0);
    EXPECT_EQ(bf->picker, "binpack");
  }
  const auto sp = placement_preset("spread");
  ASSERT_TRUE(sp.has_value());
  EXPECT_EQ(filter_set(*sp), filters);
  ASSERT_EQ(sp->scorers.size(), 1U);
  EXPECT_EQ(sp->scorers[0].first, "spread");
  EXPECT_EQ(sp->picker, "spread");
  const auto rnd = placement_preset("random");
  ASSERT_TRUE(rnd.has_value());
  EXPECT_EQ(filter_set(*rnd), filters);
  ASSERT_EQ(rnd->scorers.size(), 1U);
  EXPECT_EQ(rnd->scorers[0].first, "random");
  EXPECT_EQ(rnd->picker, "random");

  EXPECT_FALSE(placement_preset("worst-fit").has_value());
  EXPECT_FALSE(placement_preset("").has_value());
}

TEST(SimPlacementPresets, DescribeNamesThePlugins) {
  const auto bf = *placement_preset("best-fit");
  EXPECT_EQ(build_placement(bf).describe(),
            "filters=[" + joined_filters(bf) + "] scorers=[binpack:1] picker=binpack ties=random");
  const auto ff = *placement_preset("first-fit");
  EXPECT_EQ(build_placement(ff).describe(),
            "filters=[" + joined_filters(ff) + "] scorers=[] picker=first ties=first");
  PlacementConfig custom;
  custom.filters = {"resources"};
  custom.scorers = {{"spread", 2}, {"binpack", 1}};
  custom.picker = "random";
  custom.tie_break = TieBreak::kNodeOrder;
  EXPECT_EQ(build_placement(custom).describe(),
            "filters=[resources] scorers=[spread:2,binpack:1] picker=random ties=node-order");
}

TEST(SimPlacementPresets, UnknownPluginNamesThrow) {
  PlacementConfig c = *placement_preset("first-fit");
  c.filters.push_back("gpu-colour");
  EXPECT_THROW(build_placement(c), std::invalid_argument);
  c = *placement_preset("first-fit");
  c.scorers.push_back({"tetris-2", 1.0});
  EXPECT_THROW(build_placement(c), std::invalid_argument);
  c = *placement_preset("first-fit");
  c.picker = "best";
  EXPECT_THROW(build_placement(c), std::invalid_argument);
}

// --- first-fit ---

TEST(SimFirstFit, PicksLowestIndexFeasibleNodeAndGpus) {
  // Three nodes of 4 GPUs (global GPU ids 0-3, 4-7, 8-11). Node 0 full; node 1 has GPUs 0, 2
  // busy (so 1 and 3 free, global 5 and 7); node 2 empty.
  ClusterState s(cluster_of({node_group("n", 3, "A100-80GB", 4)}), catalog(), 1);
  occupy(s, 0, {0, 1, 2, 3});
  occupy(s, 1, {0, 2});

  auto c = place("first-fit", s, request(1));
  EXPECT_EQ(c.node, 1U);
  EXPECT_EQ(c.gpus, (std::vector<GpuId>{5}));

  c = place("first-fit", s, request(2));
  EXPECT_EQ(c.node, 1U);
  EXPECT_EQ(c.gpus, (std::vector<GpuId>{5, 7}));

  c = place("first-fit", s, request(3));  // only node 2 has 3 idle GPUs
  EXPECT_EQ(c.node, 2U);
  EXPECT_EQ(c.gpus, (std::vector<GpuId>{8, 9, 10}));

  c = place("first-fit", s, request(0, 1000));  // CPU-only pods go to the first node with CPU
  EXPECT_EQ(c.node, 0U);
  EXPECT_TRUE(c.gpus.empty());
}

TEST(SimFirstFit, PicksLowestIndexGpuWithRoomUnderTimeSlicing) {
  // 4 replicas per GPU; free units per GPU: {0, 2, 4, 1} after occupying 4, 2, 0, 3 replicas.
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 4)}), catalog(), 4);
  occupy(s, 0, {0}, 0, 4);
  occupy(s, 0, {1}, 0, 2);
  occupy(s, 0, {3}, 0, 3);
  EXPECT_EQ(place("first-fit", s, request(1)).gpus, (std::vector<GpuId>{1}));
  EXPECT_EQ(place("first-fit", s, request(2)).gpus, (std::vector<GpuId>{1, 2}));
  EXPECT_EQ(place("first-fit", s, request(3)).gpus, (std::vector<GpuId>{1, 2, 3}));
  EXPECT_FALSE(place("first-fit", s, request(4)).node.has_value());  // GPU 0 has no replica
}

// --- best-fit (binpack) and spread ---

// Three nodes of 4 GPUs and 32000 CPU milli:
//   node 0: 1 GPU and 4000 CPU busy   node 1: 3 GPUs, 4000 CPU   node 2: 2 GPUs, 28000 CPU
// For a pod of 1 GPU and 2000 CPU, free_after_placement = 0.5 * (cpu_left/32000 + gpus_left/4):
//   node 0: 0.5 * (26000/32000 + 2/4) = 0.5 * (0.8125 + 0.5)  = 0.65625
//   node 1: 0.5 * (26000/32000 + 0/4) = 0.5 *  0.8125         = 0.40625
//   node 2: 0.5 * ( 2000/32000 + 1/4) = 0.5 * (0.0625 + 0.25) = 0.15625
ClusterState mixed_load() {
  ClusterState s(cluster_of({node_group("n", 3, "A100-80GB", 4, 32000)}), catalog(), 1);
  occupy(s, 0, {0}, 4000);
  occupy(s, 1, {0, 1, 2}, 4000);
  occupy(s, 2, {0, 2}, 28000);
  return s;
}

TEST(SimBestFit, FreeAfterPlacementMatchesHandComputedScores) {
  const ClusterState s = mixed_load();
  const PodRequest req = request(1, 2000);
  EXPECT_DOUBLE_EQ(free_after_placement(s, req, 0), 0.65625);
  EXPECT_DOUBLE_EQ(free_after_placement(s, req, 1), 0.40625);
  EXPECT_DOUBLE_EQ(free_after_placement(s, req, 2), 0.15625);
}

TEST(SimBestFit, PicksNodeWithLeastFreeCpuAndGpuAfterPlacement) {
  // Node 2 wins although node 1 has fewer free GPUs: its CPU is nearly all taken.
  const ClusterState s = mixed_load();
  for (const char* preset : {"best-fit", "binpack"}) {
    const auto c = place(preset, s, request(1, 2000));
    EXPECT_EQ(c.node, 2U) << preset;
    EXPECT_EQ(c.gpus, (std::vector<GpuId>{9})) << preset;  // node 2's GPUs 1, 3 free: lowest
  }
}

TEST(SimSpread, PicksNodeWithMostFreeCpuAndGpuAfterPlacement) {
  const ClusterState s = mixed_load();
  const auto c = place("spread", s, request(1, 2000));
  EXPECT_EQ(c.node, 0U);
  EXPECT_EQ(c.gpus, (std::vector<GpuId>{1}));
}

TEST(SimBestFit, NormalisesByTheLargestNode) {
  // Small node (16000 CPU, 2 GPUs) then big node (64000 CPU, 8 GPUs), both empty.
  // For 1 GPU and no CPU: small = 0.5 * (16000/64000 + 1/8) = 0.1875,
  //                       big   = 0.5 * (64000/64000 + 7/8) = 0.9375.
  ClusterState s(cluster_of({node_group("small", 1, "A100-80GB", 2, 16000),
                             node_group("big", 1, "A100-80GB", 8, 64000)}),
                 catalog(), 1);
  EXPECT_DOUBLE_EQ(free_after_placement(s, request(1), 0), 0.1875);
  EXPECT_DOUBLE_EQ(free_after_placement(s, request(1), 1), 0.9375);
  EXPECT_EQ(place("best-fit", s, request(1)).node, 0U);
  EXPECT_EQ(place("spread", s, request(1)).node, 1U);
}

TEST(SimBestFit, TiesGoToTheLowerNodeIndex) {
  ClusterState s(cluster_of({node_group("n", 3, "A100-80GB", 4)}), catalog(), 1);
  occupy(s, 1, {0});
  occupy(s, 2, {0});
  EXPECT_EQ(place("best-fit", s, request(1)).node, 1U);  // nodes 1 and 2 tie
  EXPECT_EQ(place("spread", s, request(1)).node, 0U);
}

TEST(SimBestFit, DevicePickerChoosesFullestGpuThatFitsSpreadTheEmptiest) {
  // 4 replicas per GPU; free units per GPU {3, 1, 4, 2}.
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 4)}), catalog(), 4);
  occupy(s, 0, {0}, 0, 1);
  occupy(s, 0, {1}, 0, 3);
  occupy(s, 0, {3}, 0, 2);
  EXPECT_EQ(place("best-fit", s, request(1)).gpus, (std::vector<GpuId>{1}));
  EXPECT_EQ(place("best-fit", s, request(2)).gpus, (std::vector<GpuId>{1, 3}));
  EXPECT_EQ(place("spread", s, request(1)).gpus, (std::vector<GpuId>{2}));
  EXPECT_EQ(place("spread", s, request(2)).gpus, (std::vector<GpuId>{2, 0}));

  // GPU 1 full: the fullest GPU that still fits is GPU 3 (2 free).
  occupy(s, 0, {1}, 0, 1);
  EXPECT_EQ(place("best-fit", s, request(1)).gpus, (std::vector<GpuId>{3}));
}

// --- random ---

TEST(SimRandom, PicksOnlyFeasibleNodesAndAllOfThem) {
  // Six nodes of 2 GPUs; nodes 1 and 4 full. 300 draws must land on {0, 2, 3, 5} only, on a
  // free GPU, and reach each of them.
  ClusterState s(cluster_of({node_group("n", 6, "A100-80GB", 2)}), catalog(), 1);
  occupy(s, 1, {0, 1});
  occupy(s, 4, {0, 1});
  occupy(s, 3, {0});
  PlacementPolicy policy = build_placement(*placement_preset("random"));
  Rng rng(7);
  std::vector<GpuId> out(2);
  std::set<NodeId> seen;
  std::set<GpuId> seen_gpus;
  for (int i = 0; i < 300; ++i) {
    const auto n = testing::place_pod(policy, s, request(1), rng, out);
    ASSERT_TRUE(n.has_value());
    EXPECT_TRUE(*n == 0 || *n == 2 || *n == 3 || *n == 5) << *n;
    EXPECT_EQ(s.node_of(out[0]), *n);
    EXPECT_EQ(s.gpu_free_units(out[0]), 1) << out[0];  // never node 3's busy GPU 6
    seen.insert(*n);
    seen_gpus.insert(out[0]);
  }
  EXPECT_EQ(seen, (std::set<NodeId>{0, 2, 3, 5}));
  // Whole GPUs go to the lowest-index idle GPU of the node (rule 8 of issue 12, the FGD
  // simulator's AllocateExclusiveGpuId): the random choice is the node's, not the GPU's.
  EXPECT_EQ(seen_gpus, (std::set<GpuId>{0, 4, 7, 10}));
}

TEST(SimRandom, SameSeedSameChoicesOtherSeedOtherChoices) {
  ClusterState s(cluster_of({node_group("n", 8, "A100-80GB", 4)}), catalog(), 1);
  auto draws = [&](uint64_t seed) {
    PlacementPolicy policy = build_placement(*placement_preset("random"));
    Rng rng(seed);
    std::vector<GpuId> out(4), seq;
    for (int i = 0; i < 50; ++i) {
      const auto n = testing::place_pod(policy, s, request(1), rng, out);
      seq.push_back(n.value_or(999));
      seq.push_back(out[0]);
    }
    return seq;
  };
  EXPECT_EQ(draws(11), draws(11));
  EXPECT_NE(draws(11), draws(12));
}

// --- filters, for every preset: the one feasible node is the one chosen ---

TEST(SimFilters, CpuAndMemoryAreRespected) {
  // Node 0: 4000 CPU, node 1: 32000 CPU; both 64 GiB.
  ClusterState s(cluster_of({node_group("small", 1, "A100-80GB", 4, 4000, 65536),
                             node_group("big", 1, "A100-80GB", 4, 32000, 65536)}),
                 catalog(), 1);
  for (const auto& p : kPresets) {
    EXPECT_EQ(place(p, s, request(1, 8000)).node, 1U) << p;
    EXPECT_EQ(place(p, s, request(0, 8000)).node, 1U) << p;  // CPU-only too
    EXPECT_FALSE(place(p, s, request(1, 40000)).node.has_value()) << p;
    EXPECT_FALSE(place(p, s, request(1, 0, 70000)).node.has_value()) << p;
  }
  // Take 40 GiB of node 1's memory: a 30 GiB pod then fits only node 0.
  PodRequest hog = request(0, 0, 40960);
  s.bind(1, {}, hog);
  for (const auto& p : kPresets) {
    EXPECT_EQ(place(p, s, request(1, 0, 30720)).node, 0U) << p;
  }
}

TEST(SimFilters, GpuCountIsRespected) {
  // Node 0 has 2 GPUs, node 1 has 4 (one busy).
  ClusterState s(
      cluster_of({node_group("two", 1, "A100-80GB", 2), node_group("four", 1, "A100-80GB", 4)}),
      catalog(), 1);
  occupy(s, 1, {1});
  for (const auto& p : kPresets) {
    const auto c = place(p, s, request(3));
    EXPECT_EQ(c.node, 1U) << p;
    ASSERT_EQ(c.gpus.size(), 3U) << p;
    EXPECT_EQ((std::set<GpuId>(c.gpus.begin(), c.gpus.end())), (std::set<GpuId>{2, 4, 5})) << p;
    EXPECT_FALSE(place(p, s, request(4)).node.has_value()) << p;
  }
}

TEST(SimFilters, GpuMemoryIsRespected) {
  // Node 0: T4 (15360 MiB), node 1: A100-80GB.
  ClusterState s(cluster_of({node_group("t4", 1, "T4", 1), node_group("a100", 1, "A100-80GB", 1)}),
                 catalog(), 1);
  for (const auto& p : kPresets) {
    EXPECT_EQ(place(p, s, request(1, 0, 0, 20000)).node, 1U) << p;
    EXPECT_FALSE(place(p, s, request(1, 0, 0, 90000)).node.has_value()) << p;
  }
  EXPECT_EQ(place("first-fit", s, request(1, 0, 0, 15360)).node, 0U);  // exactly T4's memory
}

TEST(SimFilters, AllowedModelsAreRespected) {
  // Node 0: A100-80GB, node 1: T4. A pod allowing only T4 goes to node 1 under every preset.
  ClusterState s(cluster_of({node_group("a100", 1, "A100-80GB", 2), node_group("t4", 1, "T4", 2)}),
                 catalog(), 1);
  PodRequest t4_only = request(1);
  t4_only.model_mask = uint64_t{1} << model_index("T4");
  PodRequest h100_only = request(1);
  h100_only.model_mask = uint64_t{1} << model_index("H100-80GB");
  PodRequest either = request(1);
  either.model_mask = t4_only.model_mask | (uint64_t{1} << model_index("A100-80GB"));
  for (const auto& p : kPresets) {
    const auto c = place(p, s, t4_only);
    EXPECT_EQ(c.node, 1U) << p;
    ASSERT_EQ(c.gpus.size(), 1U);
    EXPECT_GE(c.gpus[0], 2U) << p;
    EXPECT_FALSE(place(p, s, h100_only).node.has_value()) << p;
  }
  EXPECT_EQ(place("first-fit", s, either).node, 0U);
}

TEST(SimFilters, NothingFeasibleGivesNoNode) {
  ClusterState s(cluster_of({node_group("n", 2, "A100-80GB", 1)}), catalog(), 1);
  occupy(s, 0, {0});
  occupy(s, 1, {0});
  for (const auto& p : kPresets) {
    EXPECT_FALSE(place(p, s, request(1)).node.has_value()) << p;
    EXPECT_TRUE(place(p, s, request(0, 100)).node.has_value()) << p;  // CPU still free
  }
}

}  // namespace
}  // namespace slicelab
