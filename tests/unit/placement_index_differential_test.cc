// Placement indexes change no decision: every shipped preset, on random clusters and random pod
// sequences with binds and unbinds between decisions, decides the same node, GPUs and random
// draws with indexes on as with the full pass; and whole engine runs give every pod the same
// outcome.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/engine/engine.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/free_capacity_index.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/placement_policy.h"
#include "sim/placement/score_bucket_index.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/inputs/generator.h"
#include "workloads/rng.h"

namespace slicelab {
namespace index_differential_tests {

constexpr std::array<const char*, 4> kModels = {"T4", "A100-40GB", "A100-80GB", "H100-80GB"};

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  const std::string all = placement_preset_names();  // "a, b, c"
  size_t at = 0;
  while (at < all.size()) {
    const size_t comma = all.find(", ", at);
    out.push_back(all.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 2;
  }
  return out;
}

bool is_hami(const std::string& preset) {
  return preset.rfind("hami", 0) == 0;
}

// Mixed node groups: models, GPU counts (CPU-only nodes too), CPU and memory sizes.
ClusterSpec random_cluster(Rng& rng) {
  std::vector<NodeGroup> groups;
  const int group_count = 1 + static_cast<int>(rng.below(4));
  constexpr std::array<int, 6> kGpus = {0, 1, 2, 4, 8, 8};
  for (int g = 0; g < group_count; ++g) {
    groups.push_back(testing::node_group(
        "g" + std::to_string(g), 1 + static_cast<int>(rng.below(12)), kModels[rng.below(4)],
        kGpus[rng.below(kGpus.size())], 8000 * (1 + static_cast<int64_t>(rng.below(8))),
        65536 * (1 + static_cast<int64_t>(rng.below(4)))));
  }
  return testing::cluster_of(std::move(groups));
}

// CPU-only, fractional, whole and multi-GPU pods, some restricted to models or GPU memory.
PodRequest random_request(Rng& rng, int cap_units) {
  PodRequest r;
  r.cpu_milli = 500 * static_cast<int64_t>(rng.below(17));
  r.memory_mib = 4096 * static_cast<int64_t>(rng.below(9));
  const uint64_t kind = rng.below(10);
  if (kind < 2) return r;  // CPU only
  if (kind < 5 && cap_units > 1) {
    r.gpu_count = 1;
    r.claim_units = 1 + static_cast<int>(rng.below(static_cast<uint64_t>(cap_units - 1)));
  } else {
    constexpr std::array<int, 6> kCounts = {1, 1, 2, 3, 4, 8};
    r.gpu_count = kCounts[rng.below(kCounts.size())];
    r.claim_units = cap_units;
  }
  r.gpu_milli = r.claim_units * 1000 / cap_units;
  if (rng.below(4) == 0)
    r.model_mask = (uint64_t{1} << testing::model_index(kModels[rng.below(4)])) |
                   (uint64_t{1} << testing::model_index(kModels[rng.below(4)]));
  if (rng.below(4) == 0) r.gpu_memory_mib = 8192 * static_cast<int64_t>(rng.below(8));
  return r;
}

// The target workload FGD's scorer and picker are built from.
std::vector<PodSpec> target_workload() {
  std::vector<PodSpec> pods;
  for (const auto& [gpus, milli] :
       std::vector<std::pair<int, int>>{{1, 1000}, {1, 500}, {2, 1000}, {0, 1000}, {1, 250}}) {
    PodSpec p;
    p.gpu_count = gpus;
    p.gpu_milli = milli;
    p.cpu_milli = 4000;
    p.memory_mib = 8192;
    pods.push_back(p);
  }
  return pods;
}

struct Bound {
  NodeId node;
  PodRequest req;
  std::vector<GpuId> gpus;
};

// One side of the comparison: its own cluster, policy and random stream.
struct Side {
  ClusterState cluster;
  PlacementPolicy policy;
  Rng rng;
  std::vector<Bound> bound;

  Side(const ClusterSpec& spec, int cap, const std::string& preset, const PlacementEnvironment& env,
       uint64_t seed, bool indexes)
      : Side(spec, cap, *placement_preset(preset), env, seed, indexes) {}
  Side(const ClusterSpec& spec, int cap, const PlacementConfig& config,
       const PlacementEnvironment& env, uint64_t seed, bool indexes)
      : cluster(spec, testing::catalog(), cap), policy(build_placement(config, env)), rng(seed) {
    policy.set_indexes(indexes);
    policy.attach({});
  }

  // Schedules and binds; the decision (node and GPUs) as a value to compare.
  std::optional<std::pair<NodeId, std::vector<GpuId>>> place(const PodRequest& r, uint32_t pod) {
    PodRequest req = r;
    std::vector<GpuId> gpus(8);
    SchedulingCycle cycle{cluster, req, pod, 0.0, rng};
    const auto node = policy.schedule(cycle, gpus);
    if (!node.has_value()) return std::nullopt;
    gpus.resize(static_cast<size_t>(req.gpu_count));
    cluster.bind(*node, gpus, req);
    bound.push_back({*node, req, gpus});
    return std::make_pair(*node, gpus);
  }
  void remove(size_t i) {
    cluster.unbind(bound[i].node, bound[i].gpus, bound[i].req);
    bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(i));
  }
};

// The next draw of a copy: equal for equal generator states (a 64-bit witness of the state).
uint64_t rng_witness(const Rng& rng) {
  Rng copy = rng;
  return copy.below(UINT64_MAX);
}

// `steps` decisions on both sides, each a removal of a random bound pod (one in `remove_one_in`,
// when any is bound) or a random request; both sides must place alike and draw alike.
// palette > 0: the requests are drawn from that many random ones, so that shapes repeat (the
// score-bucket index serves a shape from its second pod on); 0: every request is drawn anew.
struct Steps {
  int steps;
  uint64_t remove_one_in;
  int cap_units;
  int palette = 0;
};
void compare_decisions(Side& on, Side& off, Rng& gen, Steps how, const std::string& where,
                       uint64_t& decisions, uint64_t& placed) {
  std::vector<PodRequest> palette;
  for (int i = 0; i < how.palette; ++i) palette.push_back(random_request(gen, how.cap_units));
  for (int d = 0; d < how.steps; ++d) {
    if (!on.bound.empty() && gen.below(how.remove_one_in) == 0) {
      const size_t i = gen.below(on.bound.size());
      on.remove(i);
      off.remove(i);
      continue;
    }
    const PodRequest r =
        palette.empty() ? random_request(gen, how.cap_units) : palette[gen.below(palette.size())];
    const auto a = on.place(r, static_cast<uint32_t>(d));
    const auto b = off.place(r, static_cast<uint32_t>(d));
    ASSERT_EQ(a, b) << where << " decision " << d;
    ASSERT_EQ(rng_witness(on.rng), rng_witness(off.rng)) << where << " decision " << d;
    ++decisions;
    placed += a.has_value() ? 1 : 0;
  }
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLICELAB_INDEX_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SLICELAB_INDEX_TEST_ASAN)
constexpr int kCases = 300;  // ASan runs ~10x slower; 300 cases keep the test under ~20 s there
#else
constexpr int kCases = 1000;  // 1.7 s for all presets in Release
#endif
constexpr int kDecisions = 40;

TEST(PlacementIndexDifferential, EveryPresetDecidesAsTheFullPass) {
  const std::vector<PodSpec> target = target_workload();
  const PlacementEnvironment env{target, &testing::catalog()};
  constexpr std::array<int, 3> kCapUnits = {1, 4, 1000};
  int presets = 0;
  for (const std::string& preset : preset_names()) {
    // HAMi's presets score through the sharing mode's run (cycle.sharing); they are compared
    // whole, through the engine, in EngineRunsGiveEveryPodTheSameOutcome.
    if (is_hami(preset)) continue;
    // as-recorded keeps each pod to the node a recording names (its recorded-node filter reads
    // workload.placements, which no index models): it is the replay of decisions already made,
    // checked against the recording by replay_tests and recorder_tests.
    if (preset == "as-recorded") continue;
    ++presets;
    uint64_t decisions = 0, placed = 0, indexed = 0;
    for (int c = 0; c < kCases; ++c) {
      Rng gen(1000003ULL * static_cast<uint64_t>(c) + std::hash<std::string>{}(preset) % 1000);
      const ClusterSpec spec = random_cluster(gen);
      const int cap = kCapUnits[gen.below(kCapUnits.size())];
      Side on(spec, cap, preset, env, 17 + static_cast<uint64_t>(c), true);
      Side off(spec, cap, preset, env, 17 + static_cast<uint64_t>(c), false);
      const std::string where = preset + " case " + std::to_string(c);
      // Odd cases repeat 1 to 6 shapes (so the score-bucket index decides), even ones do not.
      const int palette = c % 2 == 1 ? 1 + c % 6 : 0;
      compare_decisions(on, off, gen, {kDecisions, 4, cap, palette}, where, decisions, placed);
      if (::testing::Test::HasFatalFailure()) return;
      indexed += on.policy.indexed_decisions();
    }
    // The cases must exercise both outcomes, or equality proves little.
    EXPECT_GT(placed, decisions / 4) << preset;
    EXPECT_LT(placed, decisions) << preset;
    // Every preset reaches its index in many decisions (else the full pass is compared with
    // itself).
    EXPECT_GT(indexed, decisions / 4) << preset;
  }
  EXPECT_GE(presets, 8);
}

// Every tie rule: under node-order the full pass draws the run's node permutation at its first
// select_host, which the counted decisions (random) must draw too (openb-fgd runs random-fit so).
TEST(PlacementIndexDifferential, EveryTieRuleDecidesAsTheFullPass) {
  const std::vector<PodSpec> target = target_workload();
  const PlacementEnvironment env{target, &testing::catalog()};
  constexpr std::array<int, 3> kCapUnits = {1, 4, 1000};
  for (const char* preset : {"random", "gpu-packing", "fgd", "dot-product", "gpu-clustering"})
    for (const TieBreak tie : {TieBreak::kNodeOrder, TieBreak::kFirst}) {
      PlacementConfig config = *placement_preset(preset);
      config.tie_break = tie;
      for (int c = 0; c < 200; ++c) {
        Rng gen(7777ULL * static_cast<uint64_t>(c) + 1);
        const ClusterSpec spec = random_cluster(gen);
        const int cap = kCapUnits[gen.below(kCapUnits.size())];
        Side on(spec, cap, config, env, 3 + static_cast<uint64_t>(c), true);
        Side off(spec, cap, config, env, 3 + static_cast<uint64_t>(c), false);
        const std::string where = std::string(preset) + " " + std::string(tie_break_name(tie)) +
                                  " case " + std::to_string(c);
        uint64_t decisions = 0, placed = 0;
        compare_decisions(on, off, gen, {kDecisions, 4, cap, c % 2 == 1 ? 1 + c % 4 : 0}, where,
                          decisions, placed);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// The index's two large-cluster paths: more than 64 nodes tied at the top that it lists (picked
// through a bitset), and more node profiles than it keeps idle classes for (kMaxClasses; the
// rest stay in the lists). 150 alike nodes, 120 of them holding the same pod, and 70 one-node
// groups of distinct CPU sizes; then random decisions and removals as above.
TEST(PlacementIndexDifferential, LargeTiesAndMoreProfilesThanClasses) {
  const std::vector<PodSpec> target = target_workload();
  const PlacementEnvironment env{target, &testing::catalog()};
  std::vector<NodeGroup> groups{testing::node_group("alike", 150, "A100-80GB", 8, 64000, 262144)};
  for (int i = 0; i < 70; ++i)
    groups.push_back(testing::node_group("single" + std::to_string(i), 1, "A100-80GB", 8,
                                         64000 + 500 * static_cast<int64_t>(i + 1), 262144));
  const ClusterSpec spec = testing::cluster_of(std::move(groups));
  static_assert(70 > FreeCapacityIndex::kMaxClasses);
  PodRequest held;
  held.cpu_milli = 2000;
  held.memory_mib = 4096;
  held.gpu_count = 1;
  held.gpu_milli = 1000;
  held.claim_units = 1;
  for (const char* preset : {"best-fit", "spread", "first-fit", "topology-aware", "binpack",
                             "random", "gpu-packing", "gpu-clustering", "dot-product", "fgd"}) {
    uint64_t decisions = 0, placed = 0;
    for (int c = 0; c < 40; ++c) {
      Rng gen(7919ULL * static_cast<uint64_t>(c) + 3);
      Side on(spec, 1, preset, env, 5 + static_cast<uint64_t>(c), true);
      Side off(spec, 1, preset, env, 5 + static_cast<uint64_t>(c), false);
      for (NodeId n = 0; n < 120; ++n)
        for (Side* side : {&on, &off}) {
          const std::vector<GpuId> gpu{side->cluster.first_gpu(n)};
          side->cluster.bind(n, gpu, held);
          side->bound.push_back({n, held, gpu});
        }
      const std::string where = std::string(preset) + " case " + std::to_string(c);
      compare_decisions(on, off, gen, {40, 5, 1, c % 2 == 1 ? 3 : 0}, where, decisions, placed);
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(placed, decisions / 2) << preset;
  }
}

// The journal a consumer replays: every bind and unbind appends its node; a consumer that fell
// further behind than the kept part gets nullopt.
TEST(PlacementIndexDifferential, ClusterJournalKeepsTheLatestChanges) {
  ClusterState cluster(testing::cluster_of({testing::node_group("n", 3, "T4", 2)}),
                       testing::catalog(), 1);
  PodRequest r;
  r.cpu_milli = 1;
  EXPECT_EQ(cluster.changes(), 0U);
  cluster.bind(1, {}, r);
  cluster.unbind(1, {}, r);
  cluster.bind(2, {}, r);
  EXPECT_EQ(cluster.changes(), 3U);
  const auto all = cluster.changed_since(0);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(std::vector<NodeId>(all->begin(), all->end()), (std::vector<NodeId>{1, 1, 2}));
  EXPECT_EQ(cluster.changed_since(2)->size(), 1U);
  EXPECT_EQ(cluster.changed_since(3)->size(), 0U);
  EXPECT_FALSE(cluster.changed_since(4).has_value());  // from the future
  // 3 nodes keep at least 64 changes: after 200, the first ones are gone, the latest 64 are not.
  for (int i = 0; i < 197; ++i) cluster.bind(static_cast<NodeId>(i % 3), {}, r);
  EXPECT_EQ(cluster.changes(), 200U);
  EXPECT_FALSE(cluster.changed_since(0).has_value());
  const auto latest = cluster.changed_since(200 - 64);
  ASSERT_TRUE(latest.has_value());
  ASSERT_EQ(latest->size(), 64U);
  EXPECT_EQ(latest->back(), static_cast<NodeId>(196 % 3));
  EXPECT_EQ((*latest)[0], static_cast<NodeId>((196 - 63) % 3));
}

// The switch is real: with indexes on, best-fit leaves only the nodes tied at the top in
// feasible() (it never scored the others), off all three feasible nodes; fgd's index (score
// buckets) serves the one-GPU shape from its second pod on.
TEST(PlacementIndexDifferential, IndexedPathRunsOnlyWhereItCanProveTheDecision) {
  const ClusterSpec spec = testing::cluster_of({testing::node_group("n", 3, "A100-80GB", 8)});
  const std::vector<PodSpec> target = target_workload();
  const PlacementEnvironment env{target, &testing::catalog()};
  uint64_t indexed = 0;  // by the last call's policy
  const auto feasible_after = [&](const char* preset, bool indexes) {
    Side side(spec, 1, preset, env, 5, indexes);
    PodRequest two;
    two.gpu_count = 2;
    two.claim_units = 1;
    side.place(two, 0);
    PodRequest one;
    one.gpu_count = 1;
    one.claim_units = 1;
    side.place(one, 1);  // nodes now have 8, 6 or 5 GPUs free: three different scores
    std::vector<GpuId> gpus(8);
    PodRequest req = one;
    SchedulingCycle cycle{side.cluster, req, 2, 0.0, side.rng};
    EXPECT_TRUE(side.policy.schedule(cycle, gpus).has_value());
    indexed = side.policy.indexed_decisions();
    return side.policy.feasible().size();
  };
  EXPECT_EQ(feasible_after("best-fit", true), 1U);
  EXPECT_EQ(indexed, 3U);  // the free-capacity index, then the score buckets for the third
  EXPECT_EQ(feasible_after("best-fit", false), 3U);
  EXPECT_EQ(indexed, 0U);
  // Spread picks the idle node: listed by the score buckets (the third pod's shape is the
  // second's), where the free-capacity index would tie it as its class's member, unlisted.
  EXPECT_EQ(feasible_after("spread", true), 1U);
  EXPECT_EQ(feasible_after("spread", false), 3U);
  EXPECT_EQ(feasible_after("first-fit", true), 1U);
  EXPECT_EQ(feasible_after("first-fit", false), 3U);
  EXPECT_EQ(feasible_after("fgd", false), 3U);
  EXPECT_EQ(indexed, 0U);
  // The third pod is the one-GPU shape's second: the score buckets decide it (the first two
  // took the full pass), and list the nodes tied at the top (FGD scores all three alike here).
  EXPECT_EQ(feasible_after("fgd", true), 3U);
  EXPECT_EQ(indexed, 1U);
  EXPECT_EQ(feasible_after("dot-product", true), 1U);
  EXPECT_EQ(indexed, 1U);
}

// More shapes than the score-bucket index keeps slots for (ScoreBucketIndex::kSlots), and shapes
// that come back after the journal moved on by more than it replays (a slot rebuilt): on a
// cluster of 40 nodes, 300 decisions drawn from 48 shapes, with removals.
TEST(PlacementIndexDifferential, ScoreBucketsEvictAndRebuild) {
  const std::vector<PodSpec> target = target_workload();
  const PlacementEnvironment env{target, &testing::catalog()};
  const ClusterSpec spec =
      testing::cluster_of({testing::node_group("a", 24, "A100-80GB", 8, 64000, 262144),
                           testing::node_group("t", 16, "T4", 4, 32000, 131072)});
  static_assert(48 > ScoreBucketIndex::kSlots);
  for (const char* preset : {"fgd", "dot-product", "gpu-clustering", "best-fit", "spread"}) {
    uint64_t decisions = 0, placed = 0, indexed = 0;
    for (int c = 0; c < 6; ++c) {
      Rng gen(4243ULL * static_cast<uint64_t>(c) + 9);
      const int cap = c % 2 == 0 ? 1 : 4;
      Side on(spec, cap, preset, env, 11 + static_cast<uint64_t>(c), true);
      Side off(spec, cap, preset, env, 11 + static_cast<uint64_t>(c), false);
      const std::string where = std::string(preset) + " case " + std::to_string(c);
      compare_decisions(on, off, gen, {300, 3, cap, 48}, where, decisions, placed);
      if (::testing::Test::HasFatalFailure()) return;
      indexed += on.policy.indexed_decisions();
    }
    EXPECT_GT(indexed, decisions / 4) << preset;
    EXPECT_GT(placed, decisions / 4) << preset;
  }
}

std::vector<PodSpec> engine_workload(uint64_t seed, int pods, double per_hour) {
  auto shape = [](int gpus, int milli, int64_t cpu, double median_s) {
    PodShape s;
    s.name = std::to_string(gpus) + "x" + std::to_string(milli);
    s.request.gpu_count = gpus;
    s.request.gpu_milli = milli;
    s.request.gpu_memory_mib = gpus > 0 ? 8192 : 0;
    s.request.cpu_milli = cpu;
    s.request.memory_mib = cpu * 2;
    s.duration.kind = DurationDistribution::Kind::kLognormal;
    s.duration.a = median_s;
    s.duration.b = 0.8;
    s.duration.min_s = 30;
    return s;
  };
  GeneratorSpec g;
  g.pod_count = static_cast<uint64_t>(pods);
  g.shapes = {shape(1, 300, 4000, 1800),   shape(1, 1000, 8000, 3600), shape(2, 1000, 16000, 3600),
              shape(4, 1000, 32000, 5400), shape(0, 1000, 6000, 1200), shape(8, 1000, 64000, 7200)};
  g.arrivals_per_hour = per_hour;
  return generate_pods(g, seed);
}

TEST(PlacementIndexDifferential, EngineRunsGiveEveryPodTheSameOutcome) {
  const ClusterSpec cluster =
      testing::cluster_of({testing::node_group("a", 20, "A100-80GB", 8, 128000, 1048576),
                           testing::node_group("t", 12, "T4", 4, 64000, 262144),
                           testing::node_group("c", 4, "T4", 0, 64000, 262144)});
  for (const std::string& preset : preset_names()) {
    SharingConfig sharing;
    if (is_hami(preset)) sharing.kind = "hami";
    for (const char* kind : {"whole-card", "time-slice", "gpu-share"}) {
      if (!is_hami(preset)) sharing.kind = kind;
      if (is_hami(preset) && std::string(kind) != "whole-card") continue;
      const auto mode = make_sharing_mode(sharing);
      for (uint64_t seed : {3ULL, 11ULL}) {
        const std::vector<PodSpec> pods = engine_workload(seed, 1000, 400);
        EngineConfig cfg;
        cfg.sample_interval_s = 600;
        const RunInputs in{cluster, testing::catalog(), pods, *mode, cfg, seed};
        PlacementPolicy on =
            build_placement(*placement_preset(preset), {pods, &testing::catalog()});
        PlacementPolicy off =
            build_placement(*placement_preset(preset), {pods, &testing::catalog()});
        off.set_indexes(false);
        const RunResult a = run_simulation(in, on);
        const RunResult b = run_simulation(in, off);
        ASSERT_EQ(a.pods.size(), b.pods.size());
        size_t started = 0;
        for (size_t i = 0; i < a.pods.size(); ++i) {
          const PodOutcome& x = a.pods[i];
          const PodOutcome& y = b.pods[i];
          ASSERT_EQ(x.node, y.node) << preset << " " << kind << " pod " << i;
          ASSERT_EQ(x.start_s, y.start_s) << preset << " " << kind << " pod " << i;
          ASSERT_EQ(x.finish_s, y.finish_s) << preset << " " << kind << " pod " << i;
          ASSERT_EQ(x.status, y.status) << preset << " " << kind << " pod " << i;
          ASSERT_EQ(x.gpu_count, y.gpu_count) << preset << " pod " << i;
          for (uint32_t g = 0; g < x.gpu_count; ++g)
            ASSERT_EQ(a.pod_gpus[x.gpu_begin + g], b.pod_gpus[y.gpu_begin + g])
                << preset << " pod " << i;
          started += x.start_s >= 0 ? 1 : 0;
        }
        EXPECT_GT(started, a.pods.size() / 2) << preset;
        EXPECT_EQ(a.summary.placement_attempts, b.summary.placement_attempts) << preset;
      }
    }
  }
}

}  // namespace index_differential_tests
}  // namespace slicelab
