// Issue 12's rules 1-8 checked one by one against values computed by hand from the issue text and
// the FGD simulator's Go source (hkust-adsl/kubernetes-scheduler-simulator), never from our code.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/metrics/fragmentation.h"
#include "sim/placement/device_pickers.h"
#include "sim/placement/fgd_model.h"
#include "sim/placement/fgd_plugins.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/placement_policy.h"
#include "sim/placement/plugins.h"
#include "sim/placement/scorers.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/rng.h"

namespace slicelab {
namespace kube_rule_tests {

// gpu-share: 1000 units (milli) per GPU. The largest node has 128 CPUs and 8 GPUs, so the paper's
// constants hold: MaxSpecCpu = 128000, MaxSpecGpu = 8000.
constexpr int kCap = 1000;
constexpr int kMaxGpus = 8;
constexpr int64_t kBigCpu = 128000;

ClusterSpec big_nodes(int count) {
  return testing::cluster_of({testing::node_group("big", count, "A100-80GB", kMaxGpus, kBigCpu)});
}

ClusterState share_state(const ClusterSpec& spec) {
  ClusterState s(spec, testing::catalog(), kCap);
  // As the engine does: room for tags 0 (share-gpu) .. 2 * (max GPUs + 1).
  s.track_shape_tags(2 * static_cast<size_t>(kMaxGpus + 1));
  return s;
}

PodRequest tagged(PodRequest r) {
  r.shape_tag = clustering_tag(r, kCap, kMaxGpus);
  return r;
}

// A share of `count` GPUs, `milli` each (count 1: an ordinary fractional pod).
PodRequest share(int milli, int64_t cpu = 0, int count = 1) {
  PodRequest r;
  r.gpu_count = count;
  r.gpu_milli = milli;
  r.claim_units = milli;
  r.cpu_milli = cpu;
  return tagged(r);
}

PodRequest whole(int count, int64_t cpu = 0) {
  return share(kCap, cpu, count);
}

PodRequest cpu_only(int64_t cpu) {
  PodRequest r;
  r.cpu_milli = cpu;
  r.gpu_count = 0;
  r.claim_units = 0;
  return tagged(r);
}

// Binds `r` on node n's local GPUs `local` (as many as r.gpu_count).
void hold(ClusterState& s, NodeId n, std::vector<GpuId> local, const PodRequest& r) {
  for (GpuId& g : local) g += s.first_gpu(n);
  s.bind(n, local, r);
}

std::vector<NodeId> all_nodes(const ClusterState& s) {
  std::vector<NodeId> nodes(s.node_count());
  std::iota(nodes.begin(), nodes.end(), NodeId{0});
  return nodes;
}

// Raw Score() of every node, before any NormalizeScore.
std::vector<int64_t> raw_scores(const Scorer& scorer, const ClusterState& s, PodRequest req) {
  const auto nodes = all_nodes(s);
  std::vector<int64_t> out(nodes.size(), -1);
  Rng rng(1);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  scorer.score(cycle, nodes, out);
  return out;
}

// Scores every node from a table the test edits (index = node).
class TableScorer final : public Scorer {
 public:
  explicit TableScorer(const std::vector<int64_t>* table) : table_(table) {}
  std::string_view name() const override { return "table"; }
  void score(const SchedulingCycle& /*cycle*/, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override {
    for (size_t i = 0; i < candidates.size(); ++i) out[i] = (*table_)[candidates[i]];
  }

 private:
  const std::vector<int64_t>* table_;
};

std::unique_ptr<DevicePicker> first_picker() {
  return std::make_unique<OrderedDevicePicker>(OrderedDevicePicker::Order::kLowestIndex);
}

PlacementPolicy table_policy(const std::vector<int64_t>* table, TieBreak ties) {
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<TableScorer>(table), 1});
  return PlacementPolicy({}, std::move(scorers), first_picker(), ties);
}

// One scheduling cycle of a CPU-only pod that every node fits.
std::optional<NodeId> schedule_once(PlacementPolicy& policy, const ClusterState& s, Rng& rng) {
  PodRequest req = cpu_only(0);
  std::array<GpuId, kMaxGpus> gpus{};
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  return policy.schedule(cycle, gpus);
}

// Pearson's statistic of `counts` against equal expected shares.
double chi_square(const std::vector<int>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double expected = total / static_cast<double>(counts.size());
  double chi = 0;
  for (const int c : counts) chi += (c - expected) * (c - expected) / expected;
  return chi;
}

// ----- rule 1: scores are integers, truncated -----

TEST(KubeRuleIntegerScores, DotProductTruncatesTowardZero) {
  ClusterState s = share_state(big_nodes(1));
  // Idle node: node vector (1, 1); pod vector (0, 176/8000 = 0.022); dot = 0.022;
  // 100 * (1 - 0.022 / 2) = 98.9 -> 98 (rounding would give 99).
  EXPECT_EQ(raw_scores(DotProductScorer(), s, share(176)), (std::vector<int64_t>{98}));
}

TEST(KubeRuleIntegerScores, NodesLessThanOnePointApartTieAndTheTieRuleDecides) {
  ClusterState s = share_state(big_nodes(2));
  hold(s, 1, {}, cpu_only(1000));
  const PodRequest req = whole(1, 64000);
  // Pod vector (64000/128000 = 0.5, 1000/8000 = 0.125).
  // node 0 idle: dot = 1*0.5 + 1*0.125 = 0.625; 100*(1 - 0.3125) = 68.75 -> 68.
  // node 1, 1 CPU used: dot = 127000/128000*0.5 + 1*0.125 = 0.49609375 + 0.125 = 0.62109375;
  //   100*(1 - 0.310546875) = 68.9453125 -> 68. Exact scores differ by 0.195: a tie.
  EXPECT_EQ(raw_scores(DotProductScorer(), s, req), (std::vector<int64_t>{68, 68}));

  // Because they tie, kFirst takes node 0 although node 1's exact score is higher, and kRandom
  // takes both over a few seeds.
  auto policy_of = [](TieBreak t) {
    std::vector<WeightedScorer> scorers;
    scorers.push_back({std::make_unique<DotProductScorer>(), 1});
    return PlacementPolicy({}, std::move(scorers), first_picker(), t);
  };
  PodRequest r = req;
  std::array<GpuId, kMaxGpus> gpus{};
  {
    PlacementPolicy p = policy_of(TieBreak::kFirst);
    Rng rng(3);
    SchedulingCycle cycle{s, r, 0, 0.0, rng, 0};
    EXPECT_EQ(p.schedule(cycle, gpus), std::optional<NodeId>(0));
  }
  std::set<NodeId> seen;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    PlacementPolicy p = policy_of(TieBreak::kRandom);
    Rng rng(seed);
    SchedulingCycle cycle{s, r, 0, 0.0, rng, 0};
    const auto node = p.schedule(cycle, gpus);
    ASSERT_TRUE(node.has_value());
    seen.insert(*node);
  }
  EXPECT_EQ(seen, (std::set<NodeId>{0, 1}));
}

TEST(KubeRuleIntegerScores, EveryBuiltInScorerStaysWithinZeroToHundred) {
  // Nodes of 2, 4 and 8 GPUs (the largest: 128 CPUs, 8 GPUs), filled at random with shares and
  // whole GPUs; every fitting node is scored for random pods by every built-in scorer.
  const ClusterSpec spec =
      testing::cluster_of({testing::node_group("big", 3, "A100-80GB", 8, kBigCpu),
                           testing::node_group("mid", 2, "A100-80GB", 4, 64000),
                           testing::node_group("small", 2, "A100-80GB", 2, 32000)});
  const auto model = std::make_shared<const FgdModel>([] {
    TargetWorkload t;
    t.shapes = {
        TargetShape{4000, 1, 500, ~uint64_t{0}, 0.4}, TargetShape{8000, 1, 1000, ~uint64_t{0}, 0.3},
        TargetShape{16000, 2, 1000, ~uint64_t{0}, 0.2}, TargetShape{2000, 0, 0, ~uint64_t{0}, 0.1}};
    return t;
  }());
  std::vector<std::unique_ptr<Scorer>> scorers;
  scorers.push_back(std::make_unique<BinpackScorer>());
  scorers.push_back(std::make_unique<SpreadScorer>());
  scorers.push_back(std::make_unique<RandomScorer>());
  scorers.push_back(std::make_unique<DotProductScorer>());
  scorers.push_back(std::make_unique<GpuPackingScorer>());
  scorers.push_back(std::make_unique<GpuClusteringScorer>());
  scorers.push_back(std::make_unique<FgdScorer>(model));
  const OrderedDevicePicker place(OrderedDevicePicker::Order::kRandom);
  Rng rng(2024);
  auto random_pod = [&] {
    switch (rng.below(4)) {
      case 0:
        return cpu_only(static_cast<int64_t>(1000 * (1 + rng.below(16))));
      case 1:
        return share(static_cast<int>(50 * (1 + rng.below(19))),
                     static_cast<int64_t>(1000 * rng.below(8)));
      case 2:
        return whole(static_cast<int>(1 + rng.below(2)), static_cast<int64_t>(1000 * rng.below(8)));
      default:
        return whole(static_cast<int>(1U << rng.below(4)),
                     static_cast<int64_t>(4000 * rng.below(4)));
    }
  };
  size_t scored = 0;
  for (int state = 0; state < 40; ++state) {
    ClusterState s = share_state(spec);
    const int pods = static_cast<int>(rng.below(30));
    for (int i = 0; i < pods; ++i) {
      PodRequest r = random_pod();
      std::vector<NodeId> fit;
      for (NodeId n = 0; n < s.node_count(); ++n)
        if (s.fits(n, r)) fit.push_back(n);
      if (fit.empty()) continue;
      const NodeId n = fit[rng.below(fit.size())];
      std::vector<GpuId> gpus(static_cast<size_t>(r.gpu_count));
      SchedulingCycle cycle{s, r, 0, 0.0, rng, 0};
      ASSERT_TRUE(place.pick(cycle, n, gpus));
      s.bind(n, gpus, r);
    }
    for (int q = 0; q < 10; ++q) {
      PodRequest r = random_pod();
      std::vector<NodeId> fit;
      for (NodeId n = 0; n < s.node_count(); ++n)
        if (s.fits(n, r)) fit.push_back(n);
      if (fit.empty()) continue;
      SchedulingCycle cycle{s, r, 0, 0.0, rng, 0};
      std::vector<int64_t> out(fit.size());
      for (const auto& scorer : scorers) {
        std::fill(out.begin(), out.end(), -1);
        scorer->score(cycle, fit, out);
        if (scorer->normalizes()) scorer->normalize_scores(out);
        for (const int64_t v : out) {
          EXPECT_GE(v, kMinNodeScore) << scorer->name();
          EXPECT_LE(v, kMaxNodeScore) << scorer->name();
        }
        scored += out.size();
      }
    }
  }
  EXPECT_GT(scored, 1000U);
}

TEST(KubeRuleIntegerScores, RandomScorerGivesOneUniformNodeTheTopScore) {
  // random_score.go: PreScore draws one of the n nodes (rand.Intn(n)); it scores 100, others 0.
  ClusterState s = share_state(big_nodes(5));
  const RandomScorer random;
  std::vector<int> top(5, 0);
  for (uint64_t seed = 0; seed < 5000; ++seed) {
    PodRequest req = share(500);
    const auto nodes = all_nodes(s);
    std::vector<int64_t> out(nodes.size(), -1);
    Rng rng(seed);
    SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
    random.score(cycle, nodes, out);
    ASSERT_EQ(std::count(out.begin(), out.end(), kMaxNodeScore), 1);
    ASSERT_EQ(std::count(out.begin(), out.end(), kMinNodeScore), 4);
    ++top[static_cast<size_t>(std::find(out.begin(), out.end(), kMaxNodeScore) - out.begin())];
  }
  // 4 degrees of freedom: P(chi2 > 18.47) = 0.001.
  EXPECT_LT(chi_square(top), 18.47);
}

// ----- rule 2: selectHost -----

// Maxima (90) at nodes 1, 3 and 4.
const std::vector<int64_t> kThreeWayTie{50, 90, 10, 90, 90, 20};

TEST(KubeRuleSelectHost, RandomIsUniformAmongTheMaximaAndNeverElsewhere) {
  ClusterState s = share_state(big_nodes(6));
  PlacementPolicy policy = table_policy(&kThreeWayTie, TieBreak::kRandom);
  // Across seeds (one pod per run) and within one run (many pods): 3000 draws each.
  std::vector<int> across(6, 0), within(6, 0);
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    Rng rng(seed);
    const auto node = schedule_once(policy, s, rng);
    ASSERT_TRUE(node.has_value());
    ++across[*node];
  }
  Rng one_run(11);
  for (int i = 0; i < 3000; ++i) ++within[*schedule_once(policy, s, one_run)];
  for (const auto* counts : {&across, &within}) {
    EXPECT_EQ((*counts)[0] + (*counts)[2] + (*counts)[5], 0) << "picked a node below the maximum";
    // 2 degrees of freedom: P(chi2 > 13.82) = 0.001 for a uniform choice.
    const std::vector<int> maxima{(*counts)[1], (*counts)[3], (*counts)[4]};
    EXPECT_LT(chi_square(maxima), 13.82) << maxima[0] << " " << maxima[1] << " " << maxima[2];
  }
}

TEST(KubeRuleSelectHost, RandomIsReproducibleForAFixedSeed) {
  ClusterState s = share_state(big_nodes(6));
  PlacementPolicy a = table_policy(&kThreeWayTie, TieBreak::kRandom);
  PlacementPolicy b = table_policy(&kThreeWayTie, TieBreak::kRandom);
  Rng ra(42), rb(42);
  std::vector<NodeId> first, second;
  for (int i = 0; i < 50; ++i) {
    first.push_back(*schedule_once(a, s, ra));
    second.push_back(*schedule_once(b, s, rb));
  }
  EXPECT_EQ(first, second);
  // Drawn per pod: 50 pods do not all land on one of three tied nodes.
  EXPECT_GT(std::set<NodeId>(first.begin(), first.end()).size(), 1U);
}

TEST(KubeRuleSelectHost, NodeOrderKeepsOnePermutationForTheWholeRun) {
  ClusterState s = share_state(big_nodes(6));
  std::vector<int> winners(6, 0);
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    std::vector<int64_t> table = kThreeWayTie;
    PlacementPolicy policy = table_policy(&table, TieBreak::kNodeOrder);
    Rng rng(seed);
    // Repeated identical ties within the run: the same node every time.
    const NodeId w = *schedule_once(policy, s, rng);
    for (int i = 0; i < 20; ++i) ASSERT_EQ(*schedule_once(policy, s, rng), w) << "seed " << seed;
    ++winners[w];
    if (seed >= 200) continue;
    // Recover the run's order: tie all six, then drop each winner in turn. Every later tie (of
    // any subset) must go to that subset's first node in this one order.
    std::vector<NodeId> order;
    table.assign(6, 70);
    for (int k = 0; k < 6; ++k) {
      const NodeId next = *schedule_once(policy, s, rng);
      ASSERT_EQ(table[next], 70);
      order.push_back(next);
      table[next] = 0;
    }
    for (uint32_t subset = 1; subset < 64; ++subset) {
      for (NodeId n = 0; n < 6; ++n) table[n] = (subset >> n) & 1U ? 80 : 5;
      const NodeId expect =
          *std::find_if(order.begin(), order.end(), [&](NodeId n) { return (subset >> n) & 1U; });
      ASSERT_EQ(*schedule_once(policy, s, rng), expect) << "seed " << seed << " subset " << subset;
    }
    // And the three-way tie of the start still goes to w.
    table = kThreeWayTie;
    ASSERT_EQ(*schedule_once(policy, s, rng), w);
  }
  EXPECT_EQ(winners[0] + winners[2] + winners[5], 0) << "picked a node below the maximum";
  // Different seeds, different permutations: each tied node first in about a third of the runs.
  const std::vector<int> maxima{winners[1], winners[3], winners[4]};
  EXPECT_LT(chi_square(maxima), 13.82) << maxima[0] << " " << maxima[1] << " " << maxima[2];
}

TEST(KubeRuleSelectHost, FirstTakesTheLowestIndexAmongTheMaxima) {
  ClusterState s = share_state(big_nodes(6));
  PlacementPolicy policy = table_policy(&kThreeWayTie, TieBreak::kFirst);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    EXPECT_EQ(schedule_once(policy, s, rng), std::optional<NodeId>(1));
  }
}

TEST(KubeRuleSelectHost, WeightsMultiplyEachScorerBeforeSumming) {
  ClusterState s = share_state(big_nodes(2));
  const std::vector<int64_t> a{10, 0}, b{0, 15};
  auto policy_of = [&](int64_t wa, int64_t wb) {
    std::vector<WeightedScorer> scorers;
    scorers.push_back({std::make_unique<TableScorer>(&a), wa});
    scorers.push_back({std::make_unique<TableScorer>(&b), wb});
    return PlacementPolicy({}, std::move(scorers), first_picker(), TieBreak::kFirst);
  };
  Rng rng(1);
  PlacementPolicy even = policy_of(1, 1);   // totals 10, 15
  PlacementPolicy twice = policy_of(2, 1);  // totals 20, 15
  EXPECT_EQ(schedule_once(even, s, rng), std::optional<NodeId>(1));
  EXPECT_EQ(schedule_once(twice, s, rng), std::optional<NodeId>(0));
}

// ----- rule 3: NormalizeScore -----

TEST(KubeRuleNormalizeScore, MinMaxToZeroHundredWithIntegerDivision) {
  std::vector<int64_t> v{10, 20, 40};
  normalize_min_max(v);
  // lowest 10, range 30: 0*100/30 = 0; 10*100/30 = 33 (33.3); 30*100/30 = 100.
  EXPECT_EQ(v, (std::vector<int64_t>{0, 33, 100}));
  std::vector<int64_t> w{8, 7, 10, 9};
  normalize_min_max(w);
  // lowest 7, range 3: 100/3 = 33, 0, 100, 200/3 = 66.
  EXPECT_EQ(w, (std::vector<int64_t>{33, 0, 100, 66}));
}

TEST(KubeRuleNormalizeScore, AllEqualBecomeZero) {
  std::vector<int64_t> v{55, 55, 55};
  normalize_min_max(v);
  EXPECT_EQ(v, (std::vector<int64_t>{0, 0, 0}));
  std::vector<int64_t> one{42};
  normalize_min_max(one);
  EXPECT_EQ(one, (std::vector<int64_t>{0}));
}

// Node 0 idle; node 1: 4 GPUs taken by whole-GPU pods and 64 CPUs by a CPU pod; node 2: 6 GPUs
// taken. The pod: 32 CPUs and one whole GPU.
ClusterState best_fit_nodes() {
  ClusterState s = share_state(big_nodes(3));
  hold(s, 1, {0, 1, 2, 3}, whole(4));
  hold(s, 1, {}, cpu_only(64000));
  hold(s, 2, {0, 1, 2, 3, 4, 5}, whole(6));
  return s;
}

TEST(KubeRuleNormalizeScore, BestFitFormulaThenMinMax) {
  const ClusterState s = best_fit_nodes();
  const PodRequest req = whole(1, 32000);
  // best_fit_score.go: Σ (free - req) / MaxSpec * 0.5, score = (1 - Σ) * 100, truncated.
  // node 0: (96000/128000)*0.5 + (7000/8000)*0.5 = 0.375 + 0.4375 = 0.8125 -> 18.75 -> 18
  // node 1: (32000/128000)*0.5 + (3000/8000)*0.5 = 0.125 + 0.1875 = 0.3125 -> 68.75 -> 68
  // node 2: (96000/128000)*0.5 + (1000/8000)*0.5 = 0.375 + 0.0625 = 0.4375 -> 56.25 -> 56
  const BinpackScorer binpack;
  auto raw = raw_scores(binpack, s, req);
  EXPECT_EQ(raw, (std::vector<int64_t>{18, 68, 56}));
  ASSERT_TRUE(binpack.normalizes());
  binpack.normalize_scores(raw);
  // lowest 18, range 50: 0, 100, 38*100/50 = 76.
  EXPECT_EQ(raw, (std::vector<int64_t>{0, 100, 76}));
}

TEST(KubeRuleNormalizeScore, BestFitIsNormalisedBeforeWeighting) {
  const ClusterState s = best_fit_nodes();
  const std::vector<int64_t> other{90, 0, 0};
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<BinpackScorer>(), 1});
  scorers.push_back({std::make_unique<TableScorer>(&other), 1});
  PlacementPolicy policy({}, std::move(scorers), first_picker(), TieBreak::kFirst);
  PodRequest req = whole(1, 32000);
  std::array<GpuId, kMaxGpus> gpus{};
  Rng rng(1);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  // Normalised, then weighted and summed: 0+90, 100+0, 76+0 -> node 1.
  // (Raw: 18+90, 68, 56 -> node 0; summed then normalised: node 0 too.)
  EXPECT_EQ(policy.schedule(cycle, gpus), std::optional<NodeId>(1));
}

// ----- rule 5: dot product -----

TEST(KubeRuleDotProduct, NodeTotalsOverTheLargestNode) {
  // node 0: 128 CPUs, 8 GPUs, idle. node 1: same, 64 CPUs used, GPU0 800 and GPU1 300 used.
  // node 2: 64 CPUs, 4 GPUs, idle (normalised by the largest node, not by itself).
  ClusterState s =
      share_state(testing::cluster_of({testing::node_group("big", 2, "A100-80GB", 8, kBigCpu),
                                       testing::node_group("half", 1, "A100-80GB", 4, 64000)}));
  hold(s, 1, {}, cpu_only(64000));
  hold(s, 1, {0}, share(800));
  hold(s, 1, {1}, share(300));
  // Pod: 16 CPUs, a 500 share. Pod vector (16000/128000 = 0.125, 500/8000 = 0.0625).
  // node 0: (1, 1): dot = 0.1875; 100*(1 - 0.09375) = 90.625 -> 90
  // node 1: (0.5, 6900/8000 = 0.8625): dot = 0.0625 + 0.05390625 = 0.11640625;
  //   100*(1 - 0.058203125) = 94.1796875 -> 94 (the fullest fitting GPU, 700 free, is not used)
  // node 2: (0.5, 0.5): dot = 0.0625 + 0.03125 = 0.09375; 100*(1 - 0.046875) = 95.3125 -> 95
  EXPECT_EQ(raw_scores(DotProductScorer(), s, share(500, 16000)),
            (std::vector<int64_t>{90, 94, 95}));
  // Two whole GPUs, no CPU: pod vector (0, 2000/8000 = 0.25).
  // node 0: dot 0.25 -> 100*(1 - 0.125) = 87.5 -> 87
  // node 1: dot 0.8625*0.25 = 0.215625 -> 100*(1 - 0.1078125) = 89.21875 -> 89
  // node 2: dot 0.5*0.25 = 0.125 -> 100*(1 - 0.0625) = 93.75 -> 93
  EXPECT_EQ(raw_scores(DotProductScorer(), s, whole(2)), (std::vector<int64_t>{87, 89, 93}));
}

// ----- rule 6: GPU packing -----

TEST(KubeRuleGpuPacking, TiersAndCapsOnEightGpuNodes) {
  // node 0: idle. node 1: GPU0 has 200 free. node 2: free [200, 760, 650, 1000 x5].
  // node 3: free [990 x6, 0, 0]. node 4: a 2-GPU node (32 CPUs), idle.
  ClusterState s =
      share_state(testing::cluster_of({testing::node_group("big", 4, "A100-80GB", 8, kBigCpu),
                                       testing::node_group("small", 1, "A100-80GB", 2, 32000)}));
  hold(s, 1, {0}, share(800));
  hold(s, 2, {0}, share(800));
  hold(s, 2, {1}, share(240));
  hold(s, 2, {2}, share(350));
  for (GpuId g = 0; g < 6; ++g) hold(s, 3, {g}, share(10));
  hold(s, 3, {6, 7}, whole(2));
  const GpuPackingScorer packing;

  // CPU-only pod: 0 everywhere.
  EXPECT_EQ(raw_scores(packing, s, cpu_only(4000)), (std::vector<int64_t>{0, 0, 0, 0, 0}));

  // A 500 share.
  // node 0, all 8 free: max(100/3 - 8, 8) = max(25, 8) = 25
  // node 1: least-free fitting GPU is a free one (1000): max(100/2 - 1, 100/3) = 49
  // node 2: least-free fitting is GPU2 (650): 650*100/1000 = 65; max(100 - 65/10, 50) = 94
  // node 3: least-free fitting is GPU0 (990): 99; max(100 - 99/10, 50) = 91
  // node 4, all 2 free: max(33 - 2, 2) = 31
  EXPECT_EQ(raw_scores(packing, s, share(500)), (std::vector<int64_t>{25, 49, 94, 91, 31}));

  // Two shares of 600: node 2 takes 650 (GPU2) then 760 (GPU1): 65 + 76 = 141 -> 141/10 = 14
  //   -> 86 (dividing per GPU would give 6 + 7 = 13 -> 87).
  // node 1 takes two free GPUs: max(50 - 2, 33) = 48. node 3: 99 + 99 = 198 -> 19 -> 81.
  EXPECT_EQ(raw_scores(packing, s, share(600, 0, 2)), (std::vector<int64_t>{25, 48, 86, 81, 31}));

  // Four whole GPUs: node 1: max(50 - 4, 33) = 46; node 2: 46 (5 free); node 3 has too few
  // (the filter removes it; the Go source gives 0 when the GPUs cannot be taken).
  const auto four = raw_scores(packing, s, whole(4));
  EXPECT_EQ(four[0], 25);
  EXPECT_EQ(four[1], 46);
  EXPECT_EQ(four[2], 46);

  // Six shares of 900 on node 3: 6 * 99 = 594 -> 59 -> 100 - 59 = 41, capped at 50.
  EXPECT_EQ(raw_scores(packing, s, share(900, 0, 6))[3], 50);
}

TEST(KubeRuleGpuPacking, CapsOnATwentyGpuNode) {
  // node 0: 20 GPUs, idle. node 1: 20 GPUs, GPU0 has 900 free.
  ClusterState s =
      share_state(testing::cluster_of({testing::node_group("wide", 2, "A100-80GB", 20, kBigCpu)}));
  hold(s, 1, {0}, share(100));
  const GpuPackingScorer packing;
  // node 0, all 20 free: max(33 - 20, 20) = 20 (the cap).
  EXPECT_EQ(raw_scores(packing, s, share(500))[0], 20);
  // node 1, 18 whole GPUs, all fully free: max(50 - 18, 33) = max(32, 33) = 33 (the cap).
  EXPECT_EQ(raw_scores(packing, s, whole(18))[1], 33);
  // node 1, 3 whole GPUs: max(50 - 3, 33) = 47.
  EXPECT_EQ(raw_scores(packing, s, whole(3))[1], 47);
}

// ----- rule 4: GPU clustering -----

TEST(KubeRuleGpuClustering, OneTagForEveryShareWholeGpusByCount) {
  // gpu_clustering: "share-gpu" for every fractional pod, whatever its size.
  EXPECT_EQ(clustering_tag(share(300), kCap, kMaxGpus), clustering_tag(share(700), kCap, kMaxGpus));
  EXPECT_EQ(clustering_tag(share(50), kCap, kMaxGpus), clustering_tag(share(999), kCap, kMaxGpus));
  std::set<uint32_t> tags{clustering_tag(share(500), kCap, kMaxGpus)};
  for (const int n : {1, 2, 4, 8}) tags.insert(clustering_tag(whole(n), kCap, kMaxGpus));
  EXPECT_EQ(tags.size(), 5U) << "share-gpu and 1, 2, 4, 8 whole GPUs are five distinct tags";
  EXPECT_EQ(clustering_tag(cpu_only(1000), kCap, kMaxGpus), PodRequest::kNoShapeTag);
}

TEST(KubeRuleGpuClustering, FourTiersPlusTheIntegerFullnessTerm) {
  // node 0: idle.
  // node 1: shares of 300 (GPU0) and 700 (GPU1): share-gpu only; free 7000.
  // node 2: a 500 share (GPU0) and a 1-GPU pod (GPU1): share-gpu and 1-GPU; free 6500.
  // node 3: a 2-GPU pod: tag 2 only; free 6000.
  // node 4: a CPU-only pod (64 CPUs), no GPU pod; free 8000.
  // node 5: seven 1-GPU pods: tag 1 only; free 1000.
  ClusterState s = share_state(big_nodes(6));
  hold(s, 1, {0}, share(300));
  hold(s, 1, {1}, share(700));
  hold(s, 2, {0}, share(500));
  hold(s, 2, {1}, whole(1));
  hold(s, 3, {0, 1}, whole(2));
  hold(s, 4, {}, cpu_only(64000));
  for (GpuId g = 0; g < 7; ++g) hold(s, 5, {g}, whole(1));
  const GpuClusteringScorer clustering;
  // Fullness term 100/4 * (8000 - free) / 8000 in integers:
  //   node 0, 4: 0; node 1: 25*1000/8000 = 3 (3.125); node 2: 25*1500/8000 = 4 (4.6875);
  //   node 3: 25*2000/8000 = 6 (6.25); node 5: 25*7000/8000 = 21 (21.875).
  // A 250 share (share-gpu, a size no node holds):
  //   node 0: 0+25 (no GPU pod); node 1: 3+75 (this tag only); node 2: 4+50 (among others);
  //   node 3: 6+0; node 4: 0+25; node 5: 21+0.
  EXPECT_EQ(raw_scores(clustering, s, share(250)), (std::vector<int64_t>{25, 78, 54, 6, 25, 21}));
  // One whole GPU (tag 1): node 1: 3+0; node 2: 4+50; node 5: 21+75 = 96 (97 if rounded).
  EXPECT_EQ(raw_scores(clustering, s, whole(1)), (std::vector<int64_t>{25, 3, 54, 6, 25, 96}));
  // Two whole GPUs (tag 2): node 3: 6+75; node 2: 4+0; node 5: 21+0.
  EXPECT_EQ(raw_scores(clustering, s, whole(2)), (std::vector<int64_t>{25, 3, 4, 81, 25, 21}));
  // CPU-only pod: 0.
  EXPECT_EQ(raw_scores(clustering, s, cpu_only(1000)), (std::vector<int64_t>(6, 0)));
}

// ----- rule 7: FGD -----

TargetShape target_shape(int gpu_count, int gpu_milli, double freq, int64_t cpu = 0) {
  return TargetShape{cpu, gpu_count, gpu_milli, ~uint64_t{0}, freq};
}

std::shared_ptr<const FgdModel> fgd_model_of(std::vector<TargetShape> shapes) {
  TargetWorkload t;
  t.shapes = std::move(shapes);
  return std::make_shared<const FgdModel>(std::move(t));
}

// F (fgd's NodeGpuShareFragAmountScore) for a shape that fits: the free milli of the GPUs with
// less free than the shape's share; when it does not fit: all the node's free milli.
//
// Target: A = one GPU x 540 (freq 0.5), B = one whole GPU (freq 0.5).
// node 0 idle. node 1: free [560, 530, 1000 x6].
TEST(KubeRuleFgd, ShareOfOneGpuScoresEachGpuAndKeepsTheFirstBestInteger) {
  ClusterState s = share_state(big_nodes(2));
  hold(s, 1, {0}, share(440));
  hold(s, 1, {1}, share(470));
  const auto model = fgd_model_of({target_shape(1, 540, 0.5), target_shape(1, 1000, 0.5)});
  const PodRequest pod = share(20);
  // node 0: F_before = 0 (A: nothing below 540; B: nothing below 1000).
  //   after [980, 1000 x7]: A 0; B 0.5*980 = 490 -> F = 490; 100*sigmoid(-490/1000) = 37.99 -> 37
  // node 1: F_before: A 0.5*530 = 265; B 0.5*(560+530) = 545 -> 810.
  //   GPU0 -> [540, 530]: A 0.5*530 = 265; B 0.5*1070 = 535; F 800; Δ 10 -> 50.2499 -> 50
  //   GPU1 -> [560, 510]: A 0.5*510 = 255; B 0.5*1070 = 535; F 790; Δ 20 -> 50.4999 -> 50
  //   GPU2 -> [560, 530, 980]: A 265; B 0.5*2070 = 1035; F 1300; Δ -490 -> 37
  //   best integer 50, first reached at GPU0 (GPU1's exact score is higher: integers tie).
  EXPECT_EQ(model->node_score(s, pod, 0), 37);
  EXPECT_EQ(model->node_score(s, pod, 1), 50);
  EXPECT_EQ(model->best_gpu(s, pod, 0), 0);
  EXPECT_EQ(model->best_gpu(s, pod, 1), 0);
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<FgdScorer>(model), 1});
  EXPECT_EQ(raw_scores(*scorers[0].scorer, s, pod), (std::vector<int64_t>{37, 50}));

  // The whole policy: node 1, GPU0 (the least-free GPU, binpack's choice, would be GPU1).
  PlacementPolicy policy({}, std::move(scorers), std::make_unique<FgdDevicePicker>(model),
                         TieBreak::kRandom);
  PodRequest req = pod;
  std::array<GpuId, kMaxGpus> gpus{};
  Rng rng(5);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  EXPECT_EQ(policy.schedule(cycle, gpus), std::optional<NodeId>(1));
  EXPECT_EQ(gpus[0], s.first_gpu(1) + 0);
}

TEST(KubeRuleFgd, WholeGpusTakeTheLowestIndexIdleOnes) {
  // Target: one shape, four whole GPUs (freq 1). node 0 idle; node 1: GPUs 0-2 taken.
  ClusterState s = share_state(big_nodes(2));
  hold(s, 1, {0, 1, 2}, whole(3));
  const auto model = fgd_model_of({target_shape(4, 1000, 1.0)});
  // node 0: F_before 0 (fits, nothing too small); after [0, 0, 1000 x6]: fits -> 0 + 0 = 0;
  //   Δ 0 -> 100*sigmoid(0) = 50.
  // node 1: F_before 0 (5 idle GPUs fit); after 3 idle: does not fit -> F = 3000;
  //   Δ -3000 -> 100*sigmoid(-3) = 4.74 -> 4.
  EXPECT_EQ(model->node_score(s, whole(2), 0), 50);
  EXPECT_EQ(model->node_score(s, whole(2), 1), 4);
  FgdDevicePicker picker(model);
  PodRequest req = whole(2);
  Rng rng(1);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  std::array<GpuId, 2> gpus{};
  ASSERT_TRUE(picker.pick(cycle, 1, gpus));
  EXPECT_EQ(gpus[0], s.first_gpu(1) + 3);
  EXPECT_EQ(gpus[1], s.first_gpu(1) + 4);
}

// Rule 7: "the target workload includes CPU-only pods". In frag.go a CPU-only shape is
// XLSatisfied (CPU fits) or XRLackCPU (it does not), and both count ALL the node's free GPU milli
// as fragment (FragAmountSumExceptQ3 leaves out Q3 only).
TEST(KubeRuleFgd, CpuOnlyShapeCountsAllFreeGpuMilliAsFragment) {
  const TargetWorkload t = [] {
    TargetWorkload w;
    w.shapes = {target_shape(1, 500, 0.5), target_shape(0, 0, 0.5, 8000)};
    return w;
  }();
  const std::vector<int> idle(8, 1000);
  // CPU fits (XL): A 0 (nothing below 500) + 0.5*8000 = 4000.
  EXPECT_DOUBLE_EQ(node_fragmentation(t, kBigCpu, 0, idle), 4000.0)
      << "frag.go counts a CPU-only shape's XLSatisfied as fragment (all free GPU milli)";
  // CPU short (XR): the same 4000.
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 4000, 0, idle), 4000.0);

  ClusterState s = share_state(big_nodes(2));
  hold(s, 1, {}, cpu_only(kBigCpu - 8000));  // node 1: exactly 8 CPUs free
  const auto model = fgd_model_of(t.shapes);
  // A 500 share on idle node 0: F_before 4000; after [500, 1000 x7] (7500 free): A 0 (500 is not
  // below 500), X 0.5*7500 = 3750; Δ 250 -> 100*sigmoid(0.25) = 56.22 -> 56.
  EXPECT_EQ(model->node_score(s, share(500), 0), 56);
  // A 1-CPU pod on node 1 (8 CPUs free -> 7): X goes from XL to XR, both 0.5*8000: Δ 0 -> 50.
  EXPECT_EQ(model->node_score(s, cpu_only(1000), 1), 50);
}

TEST(KubeRuleFgd, TargetWorkloadKeepsCpuOnlyPods) {
  // Three CPU-only pods and one 500 share: by count the CPU-only shape (3/4) comes first, then the
  // share (covered 3/4 < 95%, so it is added too): freqs 0.75 and 0.25.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 3; ++i) pods.push_back(testing::pod("c", 0, 1).gpus(0).milli(0).cpu(4000));
  pods.push_back(testing::pod("s", 0, 1).milli(500).cpu(2000));
  const TargetWorkload t = TargetWorkload::from_pods(pods, testing::catalog());
  ASSERT_EQ(t.shapes.size(), 2U) << "CPU-only pods are left out of the target workload";
  EXPECT_EQ(t.shapes[0].gpu_count, 0);
  EXPECT_EQ(t.shapes[0].cpu_milli, 4000);
  EXPECT_DOUBLE_EQ(t.shapes[0].freq, 0.75);
  EXPECT_EQ(t.shapes[1].gpu_milli, 500);
  EXPECT_DOUBLE_EQ(t.shapes[1].freq, 0.25);
}

TEST(KubeRuleFgd, ThePresetScoresWithFgdAloneAndPicksWithItsModel) {
  // Rule 7: no binpack-at-0.001 tie-break term next to fgd; selectHost breaks the ties.
  const auto fgd = placement_preset("fgd");
  ASSERT_TRUE(fgd.has_value());
  EXPECT_EQ(fgd->scorers, (std::vector<std::pair<std::string, int64_t>>{{"fgd", 1}}));
  EXPECT_EQ(fgd->picker, "fgd");
  // The other paper baselines: one scorer each, weight 1.
  for (const char* name : {"best-fit", "dot-product", "gpu-packing", "gpu-clustering", "random"}) {
    const auto c = placement_preset(name);
    ASSERT_TRUE(c.has_value()) << name;
    ASSERT_EQ(c->scorers.size(), 1U) << name;
    EXPECT_EQ(c->scorers[0].second, 1) << name;
  }
}

// ----- rule 8: the GPUs on the chosen node -----

// node 0: free [1000, 300, 700, 300, 1000 x4].
ClusterState picker_node() {
  ClusterState s = share_state(big_nodes(1));
  hold(s, 0, {1}, share(700));
  hold(s, 0, {2}, share(300));
  hold(s, 0, {3}, share(700));
  return s;
}

std::vector<GpuId> pick(const DevicePicker& picker, const ClusterState& s, PodRequest req,
                        uint64_t seed = 1) {
  Rng rng(seed);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  std::vector<GpuId> out(static_cast<size_t>(req.gpu_count));
  EXPECT_TRUE(picker.pick(cycle, 0, out));
  return out;
}

TEST(KubeRuleGpuChoice, ShareTakesTheLeastFreeGpuThatFitsLowestIndexOnTies) {
  const ClusterState s = picker_node();
  const OrderedDevicePicker binpack(OrderedDevicePicker::Order::kFullestFirst);
  // 250 fits all; least free is 300 at GPU1 and GPU3 -> GPU1.
  EXPECT_EQ(pick(binpack, s, share(250)), (std::vector<GpuId>{1}));
  // 500 fits 1000s and GPU2 (700) -> GPU2.
  EXPECT_EQ(pick(binpack, s, share(500)), (std::vector<GpuId>{2}));
  // 800 fits only idle GPUs -> GPU0.
  EXPECT_EQ(pick(binpack, s, share(800)), (std::vector<GpuId>{0}));
}

TEST(KubeRuleGpuChoice, RandomPickerIsUniformAmongFittingGpus) {
  const ClusterState s = picker_node();
  const OrderedDevicePicker random(OrderedDevicePicker::Order::kRandom);
  std::vector<int> counts(8, 0);
  for (uint64_t seed = 0; seed < 6000; ++seed) ++counts[pick(random, s, share(500), seed)[0]];
  EXPECT_EQ(counts[1] + counts[3], 0) << "picked a GPU without room";
  // Fitting: GPUs 0, 2, 4, 5, 6, 7; 5 degrees of freedom: P(chi2 > 20.52) = 0.001.
  const std::vector<int> fitting{counts[0], counts[2], counts[4], counts[5], counts[6], counts[7]};
  EXPECT_LT(chi_square(fitting), 20.52);
}

TEST(KubeRuleGpuChoice, WholeGpusTakeTheLowestIndexIdleOnesUnderEveryPicker) {
  const ClusterState s = picker_node();
  std::vector<std::unique_ptr<DevicePicker>> pickers;
  for (const auto o :
       {OrderedDevicePicker::Order::kFullestFirst, OrderedDevicePicker::Order::kEmptiestFirst,
        OrderedDevicePicker::Order::kLowestIndex, OrderedDevicePicker::Order::kRandom})
    pickers.push_back(std::make_unique<OrderedDevicePicker>(o));
  pickers.push_back(std::make_unique<FgdDevicePicker>(fgd_model_of({target_shape(1, 500, 1.0)})));
  for (const auto& p : pickers) {
    for (uint64_t seed = 0; seed < 10; ++seed) {
      auto got = pick(*p, s, whole(2), seed);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, (std::vector<GpuId>{0, 4})) << p->name() << " seed " << seed;
    }
  }
}

// ----- PostFilter and Reserve/Unreserve -----

// Removes every node while cycle.pass < open_from.
class PassGate final : public Filter {
 public:
  explicit PassGate(int open_from) : open_from_(open_from) {}
  std::string_view name() const override { return "pass-gate"; }
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override {
    if (cycle.pass < open_from_) candidates.clear();
  }

 private:
  int open_from_;
};

// Asks for another pass `grants` times.
class AskAgain final : public PostFilter {
 public:
  explicit AskAgain(int grants) : grants_(grants) {}
  std::string_view name() const override { return "ask-again"; }
  bool post_filter(const SchedulingCycle& cycle) override {
    passes.push_back(cycle.pass);
    return static_cast<int>(passes.size()) <= grants_;
  }
  std::vector<int> passes;

 private:
  int grants_;
};

PlacementPolicy gated_policy(int open_from) {
  std::vector<std::unique_ptr<Filter>> filters;
  filters.push_back(std::make_unique<PassGate>(open_from));
  std::vector<WeightedScorer> scorers;
  return PlacementPolicy(std::move(filters), std::move(scorers), first_picker(), TieBreak::kFirst);
}

TEST(KubeRulePostFilter, AskingForAnotherPassRunsTheFiltersAgain) {
  const ClusterState s = share_state(big_nodes(2));
  PlacementPolicy policy = gated_policy(1);
  AskAgain again(1);
  RunPlugins run;
  run.post_filters.push_back(&again);
  policy.attach(run);
  PodRequest req = cpu_only(0);
  std::array<GpuId, kMaxGpus> gpus{};
  Rng rng(1);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  EXPECT_EQ(policy.schedule(cycle, gpus), std::optional<NodeId>(0));
  EXPECT_EQ(again.passes, (std::vector<int>{0}));
  EXPECT_EQ(cycle.pass, 1);
}

TEST(KubeRulePostFilter, NoSecondPassUnlessAskedAndNoEndlessLoop) {
  const ClusterState s = share_state(big_nodes(2));
  std::array<GpuId, kMaxGpus> gpus{};
  Rng rng(1);
  {
    PlacementPolicy policy = gated_policy(1);
    AskAgain never(0);
    RunPlugins run;
    run.post_filters.push_back(&never);
    policy.attach(run);
    PodRequest req = cpu_only(0);
    SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
    EXPECT_EQ(policy.schedule(cycle, gpus), std::nullopt);
    EXPECT_EQ(never.passes, (std::vector<int>{0}));
  }
  {
    PlacementPolicy policy = gated_policy(100);
    AskAgain twice(2);
    RunPlugins run;
    run.post_filters.push_back(&twice);
    policy.attach(run);
    PodRequest req = cpu_only(0);
    SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
    EXPECT_EQ(policy.schedule(cycle, gpus), std::nullopt);
    EXPECT_EQ(twice.passes, (std::vector<int>{0, 1, 2}));
  }
}

// Logs "R:<name>" / "U:<name>"; reserve answers `ok`; `rewrite` replaces the first chosen GPU.
class LoggingReserve final : public ReservePlugin {
 public:
  LoggingReserve(std::string name, std::vector<std::string>* log, bool ok,
                 std::optional<GpuId> rewrite = std::nullopt)
      : name_(std::move(name)), log_(log), ok_(ok), rewrite_(rewrite) {}
  std::string_view name() const override { return name_; }
  bool reserve(const SchedulingCycle& /*cycle*/, NodeId /*node*/, std::span<GpuId> gpus) override {
    log_->push_back("R:" + name_);
    if (rewrite_ && !gpus.empty()) gpus[0] = *rewrite_;
    return ok_;
  }
  void unreserve(const SchedulingCycle& /*cycle*/, NodeId /*node*/,
                 std::span<const GpuId> /*gpus*/) override {
    log_->push_back("U:" + name_);
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  bool ok_;
  std::optional<GpuId> rewrite_;
};

TEST(KubeRuleReserve, RunInOrderAndUnreserveInReverse) {
  const ClusterState s = share_state(big_nodes(1));
  std::vector<std::string> log;
  LoggingReserve a("a", &log, true), b("b", &log, true, GpuId{5}), c("c", &log, true);
  std::vector<WeightedScorer> scorers;
  PlacementPolicy policy({}, std::move(scorers), first_picker(), TieBreak::kFirst);
  RunPlugins run;
  run.reserves = {&a, &b, &c};
  policy.attach(run);
  PodRequest req = share(500);
  std::array<GpuId, kMaxGpus> gpus{};
  Rng rng(1);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  ASSERT_EQ(policy.schedule(cycle, gpus), std::optional<NodeId>(0));
  EXPECT_EQ(log, (std::vector<std::string>{"R:a", "R:b", "R:c"}));
  EXPECT_EQ(gpus[0], GpuId{5}) << "a reserve plugin may rewrite the chosen GPUs";
  log.clear();
  policy.unreserve(cycle, 0, std::span<const GpuId>(gpus.data(), 1));
  EXPECT_EQ(log, (std::vector<std::string>{"U:c", "U:b", "U:a"}));
}

TEST(KubeRuleReserve, AFailingReserveRollsBackTheEarlierOnesInReverse) {
  const ClusterState s = share_state(big_nodes(1));
  std::vector<std::string> log;
  LoggingReserve a("a", &log, true), b("b", &log, true), c("c", &log, false), d("d", &log, true);
  std::vector<WeightedScorer> scorers;
  PlacementPolicy policy({}, std::move(scorers), first_picker(), TieBreak::kFirst);
  RunPlugins run;
  run.reserves = {&a, &b, &c, &d};
  policy.attach(run);
  PodRequest req = share(500);
  std::array<GpuId, kMaxGpus> gpus{};
  Rng rng(1);
  SchedulingCycle cycle{s, req, 0, 0.0, rng, 0};
  EXPECT_EQ(policy.schedule(cycle, gpus), std::nullopt);
  // d never reserves. Unreserve runs in reverse over the ones that ran, the failing one included
  // (it may hold part of what it tried to take). kube-scheduler also calls Unreserve on plugins
  // after the failing one (hence the idempotence contract): both shapes are accepted here.
  const std::vector<std::string> ours{"R:a", "R:b", "R:c", "U:c", "U:b", "U:a"};
  const std::vector<std::string> kube{"R:a", "R:b", "R:c", "U:d", "U:c", "U:b", "U:a"};
  EXPECT_TRUE(log == ours || log == kube) << ::testing::PrintToString(log);
}

}  // namespace kube_rule_tests
}  // namespace slicelab
