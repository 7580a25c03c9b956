// HAMi's node index changes no decision: the presets hami, hami-binpack and hami-spread, on
// random clusters, HAMi settings and pods (CPU-only, fractional cores, exclusive, multi-GPU, memory
// in MiB or percent), with binds and releases between decisions, decide the same node, GPUs and
// random draws with indexes on (HamiRun's ModeIndex) as with the full pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/modes/hami/hami_node_index.h"
#include "sim/modes/hami/hami_run.h"
#include "sim/modes/hami/hami_share.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/placement_policy.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/rng.h"

namespace slicelab {
namespace hami_index_differential_tests {

constexpr std::array<const char*, 4> kModels = {"T4", "A100-40GB", "A100-80GB", "H100-80GB"};
constexpr std::array<const char*, 3> kPresets = {"hami", "hami-binpack", "hami-spread"};

ClusterSpec random_cluster(Rng& rng) {
  std::vector<NodeGroup> groups;
  const int group_count = 1 + static_cast<int>(rng.below(4));
  constexpr std::array<int, 6> kGpus = {0, 1, 2, 4, 8, 8};
  for (int g = 0; g < group_count; ++g)
    groups.push_back(testing::node_group(
        "g" + std::to_string(g), 1 + static_cast<int>(rng.below(12)), kModels[rng.below(4)],
        kGpus[rng.below(kGpus.size())], 8000 * (1 + static_cast<int64_t>(rng.below(8))),
        65536 * (1 + static_cast<int64_t>(rng.below(4)))));
  return testing::cluster_of(std::move(groups));
}

HamiSettings random_settings(Rng& rng) {
  HamiSettings s;
  s.device_split_count = 1 + static_cast<int>(rng.below(10));
  constexpr std::array<double, 3> kMemory = {1.0, 1.5, 2.0};
  s.device_memory_scaling = kMemory[rng.below(kMemory.size())];
  s.device_core_scaling = rng.below(4) == 0 ? 2.0 : 1.0;
  s.node_policy = rng.below(2) == 0 ? HamiPolicy::kBinpack : HamiPolicy::kSpread;
  s.gpu_policy = rng.below(2) == 0 ? HamiPolicy::kBinpack : HamiPolicy::kSpread;
  return s;
}

// One pod: its spec (HAMi's memory ask) and its request (cores in claim_units).
struct RandomPod {
  PodSpec spec;
  PodRequest req;
};
RandomPod random_pod(Rng& rng) {
  RandomPod p;
  PodRequest& r = p.req;
  r.cpu_milli = 500 * static_cast<int64_t>(rng.below(17));
  r.memory_mib = 4096 * static_cast<int64_t>(rng.below(9));
  if (rng.below(10) >= 2) {  // else CPU only
    constexpr std::array<int, 7> kCounts = {1, 1, 1, 2, 3, 4, 8};
    r.gpu_count = kCounts[rng.below(kCounts.size())];
    // gpucores as the engine claims them (HamiShare::cores_of(gpu_milli), what HAMi's filter
    // and ClusterState both count): none (below 10), all (100: exclusive), half, or a random
    // count.
    const uint64_t kind = rng.below(6);
    r.gpu_milli = kind == 0   ? 1 + static_cast<int>(rng.below(9))
                  : kind == 1 ? 1000
                  : kind == 2 ? 500
                              : 10 * (1 + static_cast<int>(rng.below(99)));
    r.claim_units = HamiShare::cores_of(r.gpu_milli);
    if (rng.below(4) == 0)
      r.model_mask = (uint64_t{1} << testing::model_index(kModels[rng.below(4)])) |
                     (uint64_t{1} << testing::model_index(kModels[rng.below(4)]));
    const uint64_t mem = rng.below(4);
    if (mem == 1) p.spec.gpu_memory_mib = 2048 * (1 + static_cast<int64_t>(rng.below(40)));
    if (mem == 2) p.spec.gpu_memory_percent = 10 * (1 + static_cast<int32_t>(rng.below(10)));
    if (rng.below(3) == 0) p.spec.gpu_memory_used_mib = 1024 * static_cast<int32_t>(rng.below(8));
  }
  p.spec.gpu_count = r.gpu_count;
  p.spec.gpu_milli = r.gpu_milli;
  p.spec.cpu_milli = r.cpu_milli;
  p.spec.memory_mib = r.memory_mib;
  return p;
}

struct Bound {
  NodeId node;
  uint32_t pod;
  PodRequest req;
  std::vector<GpuId> gpus;
};

// One side: its own cluster, HAMi run, policy and random stream.
struct Side {
  ClusterState cluster;
  HamiRun run;
  PlacementPolicy policy;
  Rng rng;
  std::vector<Bound> bound;

  Side(const ClusterSpec& spec, const HamiSettings& settings, int cores,
       std::span<const PodSpec> pods, const char* preset, uint64_t seed, bool indexes)
      : cluster(spec, testing::catalog(), cores),
        run(RunSetup{cluster, testing::catalog(), pods, {}}, settings, cores),
        policy(build_placement(*placement_preset(preset))),
        rng(seed) {
    policy.set_indexes(indexes);
    policy.attach(run.plugins());
  }

  std::optional<std::pair<NodeId, std::vector<GpuId>>> place(const PodRequest& r, uint32_t pod) {
    PodRequest req = r;
    std::vector<GpuId> gpus(8);
    SchedulingCycle cycle{cluster, req, pod, 0.0, rng};
    cycle.sharing = &run;
    const auto node = policy.schedule(cycle, gpus);
    if (!node.has_value()) return std::nullopt;
    gpus.resize(static_cast<size_t>(req.gpu_count));
    cluster.bind(*node, gpus, req);
    bound.push_back({*node, pod, req, gpus});
    return std::make_pair(*node, gpus);
  }
  void remove(size_t i) {
    cluster.unbind(bound[i].node, bound[i].gpus, bound[i].req);
    run.release(bound[i].pod, bound[i].gpus);
    bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(i));
  }
};

uint64_t rng_witness(const Rng& rng) {
  Rng copy = rng;
  return copy.below(UINT64_MAX);
}

// The pods of a case, each placed once at most (HamiRun keeps per-pod state); a removal (one in
// `remove_one_in`, when any is bound) releases a random bound pod on both sides.
struct Counts {
  uint64_t decisions = 0, placed = 0;
};
void compare_decisions(Side& on, Side& off, Rng& gen, std::span<const RandomPod> pods,
                       uint64_t remove_one_in, const std::string& where, Counts& counts) {
  for (uint32_t d = 0; d < pods.size(); ++d) {
    if (!on.bound.empty() && gen.below(remove_one_in) == 0) {
      const size_t i = gen.below(on.bound.size());
      on.remove(i);
      off.remove(i);
    }
    const auto a = on.place(pods[d].req, d);
    const auto b = off.place(pods[d].req, d);
    ASSERT_EQ(a, b) << where << " decision " << d;
    ASSERT_EQ(rng_witness(on.rng), rng_witness(off.rng)) << where << " decision " << d;
    ++counts.decisions;
    counts.placed += a.has_value() ? 1 : 0;
  }
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLICELAB_HAMI_INDEX_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SLICELAB_HAMI_INDEX_TEST_ASAN)
constexpr int kCases = 300;
#else
constexpr int kCases = 1000;
#endif

TEST(HamiIndexDifferential, EveryHamiPresetDecidesAsTheFullPass) {
  for (const char* preset : kPresets) {
    Counts counts;
    for (int c = 0; c < kCases; ++c) {
      Rng gen(1000003ULL * static_cast<uint64_t>(c) + 77);
      const ClusterSpec spec = random_cluster(gen);
      const HamiSettings settings = random_settings(gen);
      const int cores = static_cast<int>(settings.device_core_scaling * 100);
      std::vector<RandomPod> pods;
      for (int i = 0; i < 60; ++i) pods.push_back(random_pod(gen));
      std::vector<PodSpec> specs;
      for (const RandomPod& p : pods) specs.push_back(p.spec);
      Side on(spec, settings, cores, specs, preset, 17 + static_cast<uint64_t>(c), true);
      Side off(spec, settings, cores, specs, preset, 17 + static_cast<uint64_t>(c), false);
      const std::string where = std::string(preset) + " case " + std::to_string(c);
      compare_decisions(on, off, gen, pods, 4, where, counts);
      if (::testing::Test::HasFatalFailure()) return;
    }
    // Both outcomes must be common, or equality proves little.
    EXPECT_GT(counts.placed, counts.decisions / 4) << preset;
    EXPECT_LT(counts.placed, counts.decisions * 9 / 10) << preset;
  }
}

// A cluster larger than a few tree levels: 300 alike nodes (spread ties more than 64 of them,
// picked through a bitset) and 40 of other profiles, with long pod sequences.
TEST(HamiIndexDifferential, LargeClusterWithManyTies) {
  const ClusterSpec spec =
      testing::cluster_of({testing::node_group("alike", 300, "A100-80GB", 8, 64000, 262144),
                           testing::node_group("t4", 30, "T4", 4, 32000, 131072),
                           testing::node_group("cpu", 10, "T4", 0, 64000, 262144)});
  for (const char* preset : kPresets) {
    Counts counts;
    for (int c = 0; c < 20; ++c) {
      Rng gen(7919ULL * static_cast<uint64_t>(c) + 3);
      HamiSettings settings = random_settings(gen);
      settings.device_core_scaling = 1.0;
      std::vector<RandomPod> pods;
      for (int i = 0; i < 600; ++i) pods.push_back(random_pod(gen));
      std::vector<PodSpec> specs;
      for (const RandomPod& p : pods) specs.push_back(p.spec);
      Side on(spec, settings, 100, specs, preset, 5 + static_cast<uint64_t>(c), true);
      Side off(spec, settings, 100, specs, preset, 5 + static_cast<uint64_t>(c), false);
      const std::string where = std::string(preset) + " large case " + std::to_string(c);
      compare_decisions(on, off, gen, pods, 3, where, counts);
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(counts.placed, counts.decisions / 2) << preset;
  }
}

// The switch is real: with indexes on, hami-binpack leaves in feasible() only the node with the
// highest HAMi score (it never scored the others); off, every node that passes.
TEST(HamiIndexDifferential, IndexedPathListsOnlyTheTop) {
  const ClusterSpec spec = testing::cluster_of({testing::node_group("n", 3, "A100-80GB", 2)});
  std::vector<PodSpec> specs(3);
  for (PodSpec& p : specs) p.gpu_count = 1;
  const HamiSettings settings;  // the run keeps a reference
  const auto feasible_after = [&](bool indexes) {
    Side side(spec, settings, 100, specs, "hami-binpack", 5, indexes);
    PodRequest one;
    one.gpu_count = 1;
    one.claim_units = 10;
    EXPECT_TRUE(side.place(one, 0).has_value());  // one node now scores above the other two
    EXPECT_TRUE(side.place(one, 1).has_value());  // binpack: the same node
    return side.policy.feasible().size();
  };
  EXPECT_EQ(feasible_after(true), 1U);
  EXPECT_EQ(feasible_after(false), 3U);
}

// The index holds resources as 32-bit values; beyond that range they are clamped, and a node is
// still never left out that the filters' own test accepts (values past 2^31, negative keys), and
// an empty leaf (a node that left the tree) is never listed.
TEST(HamiNodeIndex, ValuesBeyondThirtyTwoBitsAreNeverRefused) {
  HamiNodeIndex index;
  index.resize(5);
  constexpr int64_t kHuge = int64_t{5} << 32;
  const auto leaf = [](int64_t key, int64_t cpu) {
    HamiLeaf l;
    l.key = key;
    l.cpu_free = cpu;
    l.memory_free = kHuge;
    l.models = 1;
    return l;
  };
  const std::vector<int64_t> cpu = {kHuge + (int64_t{1} << 31) + 5, kHuge - 1, 3, kHuge + 7, kHuge};
  for (NodeId n = 0; n < 5; ++n)
    index.set(n, leaf(-static_cast<int64_t>(n) - (kHuge << 2), cpu[n]));
  index.set_idle(4, 0);  // leaves the tree
  HamiNeed need;
  need.cpu = kHuge;
  const auto exact = [&](NodeId n) { return cpu[n] >= need.cpu; };
  for (const bool highest : {true, false}) {
    int64_t top = std::numeric_limits<int64_t>::min();
    std::vector<NodeId> ties;
    auto check = exact;
    index.best(need, highest, check, top, ties);
    // Keys fall with the node id: the highest reach is node 0's, the lowest key node 3's.
    EXPECT_EQ(ties, std::vector<NodeId>{highest ? NodeId{0} : NodeId{3}}) << highest;
  }
}

}  // namespace hami_index_differential_tests
}  // namespace slicelab
