// The score-bucket index on its own, with a scorer and filters written here: a shape is served
// from its second sighting, the maxima follow binds and unbinds, large ties come as a set of bits,
// the least recently used shape gives its slot up, and a score out of range turns it off.
#include "sim/placement/score_bucket_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

// Scores a node by its free CPU in thousands (capped at 100): a function of its state. Nodes
// with less free CPU than the pod asks fail. `bad` makes node 0 score 101.
class CpuAsks final : public ScoreBucketIndex::Asks {
 public:
  CpuAsks(const ClusterState& cluster, const PodRequest& req, bool bad = false)
      : cluster_(cluster), req_(req), bad_(bad) {}
  bool feasible(NodeId n) const override { return cluster_.cpu_free(n) >= req_.cpu_milli; }
  void score(std::span<const NodeId> nodes, std::span<int64_t> out) const override {
    for (size_t i = 0; i < nodes.size(); ++i)
      out[i] =
          bad_ && nodes[i] == 0 ? 101 : std::min<int64_t>(cluster_.cpu_free(nodes[i]) / 1000, 100);
  }

 private:
  const ClusterState& cluster_;
  const PodRequest& req_;
  bool bad_;
};

PodRequest cpu_pod(int64_t milli) {
  PodRequest r;
  r.cpu_milli = milli;
  return r;
}

// The maxima as a sorted list, sets expanded.
std::vector<NodeId> expand(const std::vector<NodeId>& ties, const std::vector<TiedSet>& sets) {
  std::vector<NodeId> all = ties;
  for (const TiedSet& t : sets) {
    size_t seen = 0;
    NodeId lowest = UINT32_MAX;
    for (size_t w = 0; w < t.bits.size(); ++w)
      for (uint64_t word = t.bits[w]; word != 0; word &= word - 1) {
        const auto n = static_cast<NodeId>(w * 64 + static_cast<size_t>(std::countr_zero(word)));
        all.push_back(n);
        lowest = std::min(lowest, n);
        ++seen;
      }
    EXPECT_EQ(seen, t.count);
    EXPECT_EQ(lowest, t.lowest);
  }
  std::sort(all.begin(), all.end());
  return all;
}

// The maxima by brute force.
std::vector<NodeId> brute(const ClusterState& cluster, const CpuAsks& asks) {
  std::vector<NodeId> best;
  int64_t top = -1;
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    if (!asks.feasible(n)) continue;
    int64_t s = 0;
    asks.score(std::span<const NodeId>(&n, 1), std::span<int64_t>(&s, 1));
    if (s > top) best.clear();
    if (s >= top) {
      top = s;
      best.push_back(n);
    }
  }
  return best;
}

// `nodes` CPU-only nodes of `cpu` milli-CPU, an index over them, and the lists top() fills.
struct Fixture {
  Fixture(int nodes, int64_t cpu)
      : cluster(testing::cluster_of({testing::node_group("n", nodes, "T4", 0, cpu, 65536)}),
                testing::catalog(), 1) {}
  bool top(const PodRequest& req, const CpuAsks& asks) {
    ties.clear();
    sets.clear();
    return index.top(cluster, req, asks, ties, sets);
  }
  ClusterState cluster;
  ScoreBucketIndex index;
  std::vector<NodeId> ties;
  std::vector<TiedSet> sets;
};

TEST(ScoreBucketIndex, ServesAShapeFromItsSecondSightingAndFollowsTheCluster) {
  Fixture f(200, 64000);
  ClusterState& cluster = f.cluster;
  const PodRequest req = cpu_pod(8000);
  const CpuAsks asks(cluster, req);
  EXPECT_FALSE(f.top(req, asks));  // first sighting
  ASSERT_TRUE(f.top(req, asks));
  const auto& ties = f.ties;
  const auto& sets = f.sets;
  // 200 idle nodes tie: a set, not a list.
  EXPECT_TRUE(ties.empty());
  ASSERT_EQ(sets.size(), 1U);
  EXPECT_EQ(expand(ties, sets), brute(cluster, asks));
  // Binds and unbinds of random sizes: the maxima follow, through replays and (after more than
  // half the nodes changed) rebuilds.
  uint64_t state = 12345;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  std::vector<std::pair<NodeId, PodRequest>> bound;
  for (int step = 0; step < 600; ++step) {
    const int changes = step % 50 == 49 ? 150 : 1 + static_cast<int>(next() >> 62);
    for (int k = 0; k < changes; ++k) {
      if (!bound.empty() && (next() >> 63) != 0) {
        const size_t i = (next() >> 33) % bound.size();
        cluster.unbind(bound[i].first, {}, bound[i].second);
        bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const auto n = static_cast<NodeId>((next() >> 33) % 200);
        const PodRequest p = cpu_pod(1000 * static_cast<int64_t>(1 + (next() >> 33) % 9));
        if (cluster.cpu_free(n) < p.cpu_milli) continue;
        cluster.bind(n, {}, p);
        bound.emplace_back(n, p);
      }
    }
    ASSERT_TRUE(f.top(req, asks));
    ASSERT_EQ(expand(ties, sets), brute(cluster, asks)) << "step " << step;
  }
  EXPECT_GE(f.index.rebuilds(), 2U);
  EXPECT_EQ(f.index.answered(), 601U);
}

// The lists drop a node that left lazily: a node that leaves the top bucket and comes back, again
// and again, while most of the bucket's other members leave for good and return, is listed once,
// and the lists are compacted as stale entries pile up (the maxima stay exact throughout).
TEST(ScoreBucketIndex, NodesThatLeaveAndReturnAreListedOnce) {
  Fixture f(100, 64000);
  ClusterState& cluster = f.cluster;
  const PodRequest req = cpu_pod(1000);
  const CpuAsks asks(cluster, req);
  EXPECT_FALSE(f.top(req, asks));
  ASSERT_TRUE(f.top(req, asks));
  const PodRequest small = cpu_pod(1000);
  for (int round = 0; round < 40; ++round) {
    // All but a few leave the top bucket (a set of 100 becomes a list of a few).
    const int stay = 1 + round % 7;
    for (NodeId n = static_cast<NodeId>(stay); n < 100; ++n) {
      cluster.bind(n, {}, small);
      ASSERT_TRUE(f.top(req, asks));
      ASSERT_EQ(expand(f.ties, f.sets), brute(cluster, asks)) << round << " bind " << n;
    }
    // Node 0 leaves and returns on every step while the others come back.
    for (NodeId n = static_cast<NodeId>(stay); n < 100; ++n) {
      cluster.unbind(n, {}, small);
      cluster.bind(0, {}, small);
      ASSERT_TRUE(f.top(req, asks));
      ASSERT_EQ(expand(f.ties, f.sets), brute(cluster, asks)) << round << " unbind " << n;
      cluster.unbind(0, {}, small);
      ASSERT_TRUE(f.top(req, asks));
      ASSERT_EQ(expand(f.ties, f.sets), brute(cluster, asks)) << round << " return " << n;
    }
  }
}

TEST(ScoreBucketIndex, NoNodePassesGivesNoMaxima) {
  Fixture f(5, 4000);
  const PodRequest req = cpu_pod(8000);
  const CpuAsks asks(f.cluster, req);
  EXPECT_FALSE(f.top(req, asks));
  EXPECT_TRUE(f.top(req, asks));
  EXPECT_TRUE(f.ties.empty());
  EXPECT_TRUE(f.sets.empty());
}

TEST(ScoreBucketIndex, TheLeastRecentlyUsedShapeGivesItsSlotUp) {
  Fixture f(10, 64000);
  ScoreBucketIndex& index = f.index;
  const auto ask = [&](int64_t milli) {
    const PodRequest req = cpu_pod(milli);
    return f.top(req, CpuAsks(f.cluster, req));
  };
  // kSlots + 1 shapes, each twice: the last one takes the slot of the first.
  for (size_t s = 0; s <= ScoreBucketIndex::kSlots; ++s) {
    EXPECT_FALSE(ask(1000 + static_cast<int64_t>(s)));
    EXPECT_TRUE(ask(1000 + static_cast<int64_t>(s)));
  }
  EXPECT_EQ(index.rebuilds(), ScoreBucketIndex::kSlots + 1);
  EXPECT_TRUE(ask(1001));  // still held: no rebuild
  EXPECT_EQ(index.rebuilds(), ScoreBucketIndex::kSlots + 1);
  EXPECT_FALSE(ask(1000));  // evicted, and out of probation: a first sighting again
  EXPECT_TRUE(ask(1000));
  EXPECT_EQ(index.rebuilds(), ScoreBucketIndex::kSlots + 2);
}

TEST(ScoreBucketIndex, AScoreOutOfRangeTurnsItOffUntilReset) {
  Fixture f(4, 64000);
  const PodRequest req = cpu_pod(1000);
  const CpuAsks bad(f.cluster, req, true), good(f.cluster, req);
  EXPECT_FALSE(f.top(req, bad));
  EXPECT_FALSE(f.top(req, bad));   // the rebuild meets 101
  EXPECT_FALSE(f.top(req, good));  // off for the run
  f.index.reset();
  EXPECT_FALSE(f.top(req, good));
  EXPECT_TRUE(f.top(req, good));
  EXPECT_EQ(f.ties.size(), 4U);
}

}  // namespace
}  // namespace slicelab
