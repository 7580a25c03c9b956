// The static filter cache: per pod shape, the nodes that pass the filters' static parts, against
// a brute force over a small heterogeneous cluster; its bound; and that the candidates reaching
// the scorers are the very ones (same order) the filters alone would leave.
#include "sim/placement/static_filter_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/device_pickers.h"
#include "sim/placement/filters.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/placement_policy.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/rng.h"

namespace slicelab {
namespace static_cache_tests {

constexpr int kShareUnits = 1000;

// Node ids by group: 0-1 T4 x4, 2-4 A100-80GB x8, 5 CPU only, 6-7 A100-40GB x2, 8 H100 x8.
ClusterSpec mixed_cluster() {
  using testing::node_group;
  return testing::cluster_of({node_group("t4", 2, "T4", 4), node_group("a80", 3, "A100-80GB", 8),
                              node_group("cpu", 1, "T4", 0), node_group("a40", 2, "A100-40GB", 2),
                              node_group("h100", 1, "H100-80GB", 8)});
}

uint64_t mask_of(std::initializer_list<const char*> models) {
  uint64_t m = 0;
  for (const char* name : models) m |= uint64_t{1} << testing::model_index(name);
  return m;
}

PodRequest gpu_pod(int count, int64_t gpu_mem, uint64_t mask = ~uint64_t{0}, int milli = 1000) {
  PodRequest r;
  r.gpu_count = count;
  r.gpu_memory_mib = gpu_mem;
  r.model_mask = mask;
  r.gpu_milli = milli;
  r.claim_units = count > 0 ? milli : 0;
  r.cpu_milli = 1000;
  r.memory_mib = 1024;
  return r;
}

std::vector<NodeId> all_nodes(const ClusterState& s) {
  std::vector<NodeId> v(s.node_count());
  std::iota(v.begin(), v.end(), NodeId{0});
  return v;
}

// The static checks spelled out from the filter's documentation, node by node.
std::vector<NodeId> brute_force(const ClusterState& s, const PodRequest& r) {
  std::vector<NodeId> out;
  for (NodeId n = 0; n < s.node_count(); ++n) {
    const bool ok = r.gpu_count == 0 ||
                    (((r.model_mask >> s.model(n)) & 1U) != 0 &&
                     s.gpu_memory_capacity(n) >= r.gpu_memory_mib && s.gpus_on(n) >= r.gpu_count);
    if (ok) out.push_back(n);
  }
  return out;
}

std::vector<NodeId> cached(StaticFilterCache& cache, const ClusterState& s, const PodRequest& r) {
  std::vector<NodeId> nodes = all_nodes(s);
  EXPECT_TRUE(cache.narrow(s, r, nodes));
  return nodes;
}

TEST(StaticFilterCache, HandPickedShapesOnAMixedCluster) {
  const ClusterState s(mixed_cluster(), testing::catalog(), kShareUnits);
  const GpuModelFilter model;
  StaticFilterCache cache;
  cache.reset({&model});
  // Any model, 4 GPUs: T4 x4, A100-80GB x8, H100 x8 (A100-40GB has 2, the CPU node none).
  EXPECT_EQ(cached(cache, s, gpu_pod(4, 0)), (std::vector<NodeId>{0, 1, 2, 3, 4, 8}));
  // 40 GiB on one GPU: the A100s and the H100; T4 (15 GiB) never.
  EXPECT_EQ(cached(cache, s, gpu_pod(1, 40960)), (std::vector<NodeId>{2, 3, 4, 6, 7, 8}));
  // Only T4 or A100-40GB, 2 GPUs: the T4 nodes and the A100-40GB nodes.
  EXPECT_EQ(cached(cache, s, gpu_pod(2, 0, mask_of({"T4", "A100-40GB"}))),
            (std::vector<NodeId>{0, 1, 6, 7}));
  // CPU only: every node.
  EXPECT_EQ(cached(cache, s, gpu_pod(0, 0)), all_nodes(s));
  // 16 GPUs: none.
  EXPECT_TRUE(cached(cache, s, gpu_pod(16, 0)).empty());
}

TEST(StaticFilterCache, EveryShapeEqualsABruteForceStaticCheck) {
  const ClusterState s(mixed_cluster(), testing::catalog(), kShareUnits);
  const GpuModelFilter model;
  const ResourceFilter resources;  // no static part: dropped
  StaticFilterCache cache;
  cache.reset({&resources, &model});
  // 4 x 4 x 4 = kMaxShapes shapes; the memories straddle T4, A100-40GB and H100 (81559 MiB).
  const uint64_t masks[] = {~uint64_t{0}, mask_of({"A100-80GB", "H100-80GB"}), mask_of({"T4"}),
                            mask_of({"V100-16GB"})};
  const int64_t mems[] = {0, 20000, 81559, 81920};
  const int counts[] = {0, 1, 2, 8};
  size_t shapes = 0;
  for (const uint64_t m : masks)
    for (const int64_t mem : mems)
      for (const int c : counts) {
        const PodRequest r = gpu_pod(c, mem, m);
        EXPECT_EQ(cached(cache, s, r), brute_force(s, r)) << m << " " << mem << " " << c;
        // Asked again (now from the cache), and on a list a pre-filter narrowed already.
        EXPECT_EQ(cached(cache, s, r), brute_force(s, r));
        std::vector<NodeId> odd = {1, 3, 5, 7};
        ASSERT_TRUE(cache.narrow(s, r, odd));
        std::vector<NodeId> want;
        for (const NodeId n : brute_force(s, r))
          if (n % 2 == 1) want.push_back(n);
        EXPECT_EQ(odd, want);
        ++shapes;
      }
  EXPECT_EQ(cache.cached_shapes(), shapes);
}

TEST(StaticFilterCache, ShapesDifferingInOneStaticFieldGetTheirOwnEntries) {
  const ClusterState s(mixed_cluster(), testing::catalog(), kShareUnits);
  const GpuModelFilter model;
  StaticFilterCache cache;
  cache.reset({&model});
  const PodRequest base = gpu_pod(2, 20000);
  EXPECT_EQ(cached(cache, s, base), (std::vector<NodeId>{2, 3, 4, 6, 7, 8}));
  EXPECT_EQ(cache.cached_shapes(), 1U);

  PodRequest more_gpus = base;
  more_gpus.gpu_count = 4;
  EXPECT_EQ(cached(cache, s, more_gpus), (std::vector<NodeId>{2, 3, 4, 8}));
  EXPECT_EQ(cache.cached_shapes(), 2U);

  PodRequest less_mem = base;
  less_mem.gpu_memory_mib = 10000;
  EXPECT_EQ(cached(cache, s, less_mem), (std::vector<NodeId>{0, 1, 2, 3, 4, 6, 7, 8}));
  EXPECT_EQ(cache.cached_shapes(), 3U);

  PodRequest only_h100 = base;
  only_h100.model_mask = mask_of({"H100-80GB"});
  EXPECT_EQ(cached(cache, s, only_h100), (std::vector<NodeId>{8}));
  EXPECT_EQ(cache.cached_shapes(), 4U);

  // CPU, memory and the GPU share are not static fields: same entry, same nodes.
  PodRequest other = base;
  other.cpu_milli = 64000;
  other.memory_mib = 1;
  other.gpu_milli = 300;
  other.claim_units = 300;
  EXPECT_EQ(cached(cache, s, other), (std::vector<NodeId>{2, 3, 4, 6, 7, 8}));
  EXPECT_EQ(cache.cached_shapes(), 4U);
}

TEST(StaticFilterCache, AtMostMaxShapesAreCachedAndTheRestAreLeftToTheFilters) {
  const ClusterState s(mixed_cluster(), testing::catalog(), kShareUnits);
  const GpuModelFilter model;
  StaticFilterCache cache;
  cache.reset({&model});
  const size_t extra = 10;
  for (size_t i = 0; i < StaticFilterCache::kMaxShapes + extra; ++i) {
    const PodRequest r = gpu_pod(1, 1000 + static_cast<int64_t>(i) * 1000);  // distinct shapes
    std::vector<NodeId> nodes = all_nodes(s);
    const bool hit = cache.narrow(s, r, nodes);
    EXPECT_EQ(hit, i < StaticFilterCache::kMaxShapes) << i;
    if (hit) {
      EXPECT_EQ(nodes, brute_force(s, r));
    } else {
      EXPECT_EQ(nodes, all_nodes(s));  // left as it was
    }
    EXPECT_LE(cache.cached_shapes(), StaticFilterCache::kMaxShapes);
  }
  EXPECT_EQ(cache.cached_shapes(), StaticFilterCache::kMaxShapes);
  // The shapes cached first are still served.
  std::vector<NodeId> nodes = all_nodes(s);
  EXPECT_TRUE(cache.narrow(s, gpu_pod(1, 1000), nodes));
  // A reset (a new run) forgets them all.
  cache.reset({&model});
  EXPECT_EQ(cache.cached_shapes(), 0U);
}

TEST(StaticFilterCache, NoStaticPartMeansNothingIsCached) {
  const ClusterState s(mixed_cluster(), testing::catalog(), kShareUnits);
  const ResourceFilter resources;
  const GpuCapacityFilter capacity;
  StaticFilterCache cache;
  cache.reset({&resources, &capacity});
  std::vector<NodeId> nodes = all_nodes(s);
  EXPECT_FALSE(cache.narrow(s, gpu_pod(4, 0), nodes));
  EXPECT_EQ(nodes, all_nodes(s));
  EXPECT_EQ(cache.cached_shapes(), 0U);
}

TEST(StaticFilterCache, AnotherClusterIsNotServedTheFirstOnesNodes) {
  const ClusterState mixed(mixed_cluster(), testing::catalog(), kShareUnits);
  const ClusterState t4_only(testing::cluster_of({testing::node_group("t4", 9, "T4", 4)}),
                             testing::catalog(), kShareUnits);
  const GpuModelFilter model;
  StaticFilterCache cache;
  cache.reset({&model});
  const PodRequest r = gpu_pod(1, 20000);
  EXPECT_EQ(cached(cache, mixed, r), (std::vector<NodeId>{2, 3, 4, 6, 7, 8}));
  EXPECT_TRUE(cached(cache, t4_only, r).empty());  // same node count, other cluster
}

// Records the candidates that reach scoring, scores them all equal.
class RecordingScorer final : public Scorer {
 public:
  explicit RecordingScorer(std::vector<NodeId>* seen) : seen_(seen) {}
  std::string_view name() const override { return "recording"; }
  void score(const SchedulingCycle&, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override {
    seen_->assign(candidates.begin(), candidates.end());
    std::fill(out.begin(), out.end(), kMaxNodeScore);
  }

 private:
  std::vector<NodeId>* seen_;
};

TEST(StaticFilterCache, CandidatesReachingScoringAreThoseTheFiltersAloneLeave) {
  ClusterState s(mixed_cluster(), testing::catalog(), kShareUnits);
  std::vector<NodeId> seen;
  std::vector<std::unique_ptr<Filter>> filters;
  for (const char* f : {"gpu-capacity", "resources", "gpu-model"})
    filters.push_back(make_filter(f));
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<RecordingScorer>(&seen), 1});
  PlacementPolicy policy(
      std::move(filters), std::move(scorers),
      std::make_unique<OrderedDevicePicker>(OrderedDevicePicker::Order::kLowestIndex),
      TieBreak::kRandom);
  const GpuModelFilter model;
  const ResourceFilter resources;
  const GpuCapacityFilter capacity;
  Rng rng(5);
  Rng pods(11);
  const uint64_t masks[] = {~uint64_t{0}, mask_of({"A100-80GB", "H100-80GB"}), mask_of({"T4"})};
  const int64_t mems[] = {0, 15360, 40960};
  std::vector<GpuId> gpus(8);
  int placed = 0;
  for (int i = 0; i < 200; ++i) {
    const int kind = static_cast<int>(pods.below(4));  // CPU only, a quarter GPU, 2 or 4 GPUs
    const int count = kind == 1 ? 1 : kind == 2 ? 2 : kind == 3 ? 4 : 0;
    PodRequest r =
        gpu_pod(count, mems[pods.below(3)], masks[pods.below(3)], kind == 1 ? 250 : 1000);
    r.cpu_milli = 1000 + static_cast<int64_t>(pods.below(4)) * 1000;
    // The filters on their own, over every node, in the policy's order.
    std::vector<NodeId> want = all_nodes(s);
    PodRequest copy = r;
    const SchedulingCycle probe{s, copy, 0, 0.0, rng};
    capacity.filter(probe, want);
    resources.filter(probe, want);
    model.filter(probe, want);
    seen.clear();
    SchedulingCycle cycle{s, r, static_cast<uint32_t>(i), 0.0, rng};
    const auto node = policy.schedule(cycle, gpus);
    EXPECT_EQ(node.has_value(), !want.empty()) << i;
    if (!node) continue;
    EXPECT_EQ(seen, want) << i;
    s.bind(*node, std::span<const GpuId>(gpus).first(static_cast<size_t>(r.gpu_count)), r);
    ++placed;
  }
  EXPECT_GT(placed, 20);  // the cluster filled up along the way
}

}  // namespace static_cache_tests
}  // namespace slicelab
