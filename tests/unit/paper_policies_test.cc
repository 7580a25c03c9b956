// Pins down the FGD paper's policies on hand-built clusters: FGD's node and GPU choice from F
// before/after, its memo, and the dot-product, gpu-packing, gpu-clustering and random-fit values.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/fgd_model.h"
#include "sim/placement/fgd_plugins.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/placement_config.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::node_group;

constexpr int kCap = 1000;  // gpu-share units per GPU

// 100 * sigmoid((before - after) / 1000), the FGD score before truncation, for expected values.
double fgd_score(double before, double after) {
  return 100.0 / (1.0 + std::exp(-(before - after) / 1000.0));
}
// The integer score fgd_score.go gives: int64(sigmoid(x) * 100).
int64_t fgd_int(double before, double after) {
  return static_cast<int64_t>(1.0 / (1.0 + std::exp(-((before - after) / 1000.0))) * 100.0);
}

TargetShape paper_shape(int gpu_count, int gpu_milli, double freq, int64_t cpu = 0) {
  return TargetShape{cpu, gpu_count, gpu_milli, ~uint64_t{0}, freq};
}

TargetWorkload target_of(std::vector<TargetShape> shapes) {
  TargetWorkload t;
  t.shapes = std::move(shapes);
  return t;
}

// A request in gpu-share units: claim = milli per GPU.
PodRequest share_req(int gpu_count, int milli, int64_t cpu = 0, uint32_t tag = 0) {
  PodRequest r;
  r.gpu_count = gpu_count;
  r.gpu_milli = gpu_count > 0 ? milli : 0;
  r.claim_units = gpu_count > 0 ? milli : 0;
  r.cpu_milli = cpu;
  r.shape_tag = gpu_count > 0 ? tag : PodRequest::kNoShapeTag;
  return r;
}

// Binds a pod of `milli` on local GPU `g` of node n (and `cpu`).
void take(ClusterState& s, NodeId n, GpuId g, int milli, int64_t cpu = 0,
          uint32_t tag = PodRequest::kNoShapeTag) {
  PodRequest r = share_req(1, milli, cpu);
  r.shape_tag = tag;
  const GpuId gpu = s.first_gpu(n) + g;
  s.bind(n, std::span<const GpuId>(&gpu, 1), r);
}

std::vector<int64_t> scores(const Scorer& scorer, const ClusterState& s, PodRequest req) {
  std::vector<NodeId> nodes(s.node_count());
  for (NodeId n = 0; n < nodes.size(); ++n) nodes[n] = n;
  std::vector<int64_t> out(nodes.size(), -1);
  Rng rng(1);
  const SchedulingCycle cycle{s, req, 0, 0.0, rng};
  scorer.score(cycle, nodes, out);
  return out;
}

struct Placed {
  std::optional<NodeId> node;
  std::vector<GpuId> local_gpus;
};

Placed paper_place(std::string_view preset, const ClusterState& s, const PodRequest& req,
                   const PlacementEnvironment& env = {}, uint64_t seed = 1) {
  // Ties to the lowest node index, so that expectations name one node.
  PlacementConfig config = *placement_preset(preset);
  config.tie_break = TieBreak::kFirst;
  PlacementPolicy policy = build_placement(config, env);
  Rng rng(seed);
  std::vector<GpuId> out(64, 9999);
  Placed p;
  p.node = testing::place_pod(policy, s, req, rng, out);
  if (p.node)
    for (int i = 0; i < req.gpu_count; ++i)
      p.local_gpus.push_back(out[static_cast<size_t>(i)] - s.first_gpu(*p.node));
  return p;
}

// The GPUs (local indices) the fgd picker takes on node n.
std::vector<GpuId> fgd_pick(const std::shared_ptr<const FgdModel>& m, const ClusterState& s,
                            PodRequest req, NodeId n) {
  FgdDevicePicker picker(m);
  Rng rng(1);
  std::vector<GpuId> out(64, 9999);
  const SchedulingCycle cycle{s, req, 0, 0.0, rng};
  EXPECT_TRUE(picker.pick(cycle, n, out));
  std::vector<GpuId> local;
  for (int i = 0; i < req.gpu_count; ++i)
    local.push_back(out[static_cast<size_t>(i)] - s.first_gpu(n));
  return local;
}

// --- FGD ---

TEST(PaperPoliciesFgd, ShareGoesToTheGpuThatKeepsRoomForThePopularShape) {
  // Target: share 600 only. One 2-GPU node, 300 taken on GPU0: frees {700, 1000}.
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 2)}), catalog(), kCap);
  take(s, 0, 0, 300);
  auto m = std::make_shared<const FgdModel>(target_of({paper_shape(1, 600, 1.0)}));
  const PodRequest pod = share_req(1, 200);
  // F before {700, 1000}: both >= 600, nothing too small -> 0.
  // On GPU0 -> {500, 1000}: fits on GPU1, 500 too small -> F = 500, score 100*sig(-0.5).
  // On GPU1 -> {700, 800}: both still hold 600 -> F = 0, score 100*sig(0) = 50.
  EXPECT_EQ(m->node_score(s, pod, 0), 50);
  EXPECT_EQ(m->best_gpu(s, pod, 0), 1);
  // The picker takes the GPU the scorer scored: GPU1, not the fuller GPU0 binpack would take.
  EXPECT_EQ(fgd_pick(m, s, pod, 0), std::vector<GpuId>{1});
  EXPECT_EQ(paper_place("best-fit", s, pod).local_gpus, std::vector<GpuId>{0});
}

TEST(PaperPoliciesFgd, TwoShapeTargetScoresFromFBeforeAndAfter) {
  // Target: share 600 (0.5), whole GPU (0.5). Frees {1000, 700} (300 on GPU1). Pod: 300.
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 2)}), catalog(), kCap);
  take(s, 0, 1, 300);
  auto m = std::make_shared<const FgdModel>(
      target_of({paper_shape(1, 600, 0.5), paper_shape(1, 1000, 0.5)}));
  // Before: 600 fits, 0 too small; 1000 fits, 700 too small -> 0.5*700 = 350.
  // GPU0 -> {700, 700}: 600: 0; 1000 cannot fit: 1400 -> F = 700.
  // GPU1 -> {1000, 400}: 600: 400 too small; 1000: 400 too small -> F = 400. Best.
  EXPECT_NEAR(fgd_score(350, 400), 48.750260, 1e-6);  // 100 / (1 + e^0.05), truncated: 48
  EXPECT_EQ(m->node_score(s, share_req(1, 300), 0), 48);
  EXPECT_EQ(m->best_gpu(s, share_req(1, 300), 0), 1);
  EXPECT_EQ(fgd_pick(m, s, share_req(1, 300), 0), std::vector<GpuId>{1});
}

TEST(PaperPoliciesFgd, EqualScoresGoToTheFirstGpu) {
  // Target: share 200. Frees {1000, 700}; pod 300: GPU0 -> {700, 700}, GPU1 -> {1000, 400}:
  // F = 0 either way (every GPU still holds 200), score 50 both: fgd_score.go keeps the first
  // GPU with the best score (strict >), GPU0, not the fuller GPU1.
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 2)}), catalog(), kCap);
  take(s, 0, 1, 300);
  auto m = std::make_shared<const FgdModel>(target_of({paper_shape(1, 200, 1.0)}));
  EXPECT_EQ(m->node_score(s, share_req(1, 300), 0), 50);
  EXPECT_EQ(m->best_gpu(s, share_req(1, 300), 0), 0);
  EXPECT_EQ(fgd_pick(m, s, share_req(1, 300), 0), std::vector<GpuId>{0});
}

TEST(PaperPoliciesFgd, NodeChoiceThroughThePreset) {
  // Two 1-GPU nodes: node0 has 300 taken (free 700), node1 idle. Target share 600 only, built
  // from the environment's pods (3 pods of share 600).
  ClusterState s(cluster_of({node_group("n", 2, "A100-80GB", 1)}), catalog(), kCap);
  take(s, 0, 0, 300);
  std::vector<PodSpec> pods(3, testing::pod("p", 0, 1).milli(600));
  const PlacementEnvironment env{pods, &catalog()};
  // Pod 200: node0 {700} -> {500}: 600 cannot fit: F 0 -> 500, score 100*sig(-0.5) = 37.75;
  //          node1 {1000} -> {800}: F 0 -> 0, score 50. -> node1.
  auto m = std::make_shared<const FgdModel>(TargetWorkload::from_pods(pods, catalog()));
  FgdScorer scorer(m);
  const std::vector<int64_t> v = scores(scorer, s, share_req(1, 200));
  EXPECT_NEAR(fgd_score(0, 500), 37.754067, 1e-6);
  EXPECT_EQ(v[0], 37);
  EXPECT_EQ(v[1], 50);
  const Placed p = paper_place("fgd", s, share_req(1, 200), env);
  EXPECT_EQ(p.node, std::optional<NodeId>{1});
  EXPECT_EQ(p.local_gpus, std::vector<GpuId>{0});
  // Pod 100: node0 -> {600}: still fits -> 50; node1 -> {900} -> 50: tie -> node0.
  EXPECT_EQ(paper_place("fgd", s, share_req(1, 100), env).node, std::optional<NodeId>{0});
  // Without an environment the target is empty: every score 50, lowest node wins.
  EXPECT_EQ(paper_place("fgd", s, share_req(1, 200)).node, std::optional<NodeId>{0});
}

TEST(PaperPoliciesFgd, WholeGpuPodsPreferTheNodeThatStillHoldsTheTwoGpuShape) {
  // Target: 2 whole GPUs. node0: 2 idle GPUs, node1: 3 idle GPUs. Pod: 1 whole GPU.
  ClusterState s(
      cluster_of({node_group("a", 1, "A100-80GB", 2), node_group("b", 1, "A100-80GB", 3)}),
      catalog(), kCap);
  auto m = std::make_shared<const FgdModel>(target_of({paper_shape(2, 1000, 1.0)}));
  FgdScorer scorer(m);
  // node0: before 0; after {0, 1000}: 2 GPUs no longer fit: F = 1000 -> 100*sig(-1) = 26.89.
  // node1: before 0; after {0, 1000, 1000}: fits, no partial GPU: F = 0 -> 50.
  const std::vector<int64_t> v = scores(scorer, s, share_req(1, 1000));
  EXPECT_EQ(v[0], 26);  // 26.894142
  EXPECT_EQ(v[1], 50);
  EXPECT_EQ(fgd_pick(m, s, share_req(1, 1000), 1), std::vector<GpuId>{0});
  // A 2-GPU pod on node1 -> {0, 0, 1000}: F = 1000 -> 26.89; takes GPUs 0 and 1.
  EXPECT_EQ(m->node_score(s, share_req(2, 1000), 1), 26);
  EXPECT_EQ(fgd_pick(m, s, share_req(2, 1000), 1), (std::vector<GpuId>{0, 1}));
}

TEST(PaperPoliciesFgd, WholeGpuTakesTheFirstIdleGpus) {
  // Frees {900, 1000, 1000} (100 on GPU0); target 2 whole GPUs.
  // Before: fits, 900 partial -> 900. The pod takes GPU1 (first idle): {900, 0, 1000}: one idle
  // GPU left -> all 1900 free is fragment. Score 100*sig((900-1900)/1000) = 26.89.
  ClusterState s(cluster_of({node_group("b", 1, "A100-80GB", 3)}), catalog(), kCap);
  take(s, 0, 0, 100);
  auto m = std::make_shared<const FgdModel>(target_of({paper_shape(2, 1000, 1.0)}));
  EXPECT_EQ(m->node_score(s, share_req(1, 1000), 0), fgd_int(900, 1900));
  EXPECT_EQ(fgd_int(900, 1900), 26);
  EXPECT_EQ(fgd_pick(m, s, share_req(1, 1000), 0), std::vector<GpuId>{1});
}

TEST(PaperPoliciesFgd, CpuOnlyPodsAreScoredByTheCpuTheyLeave) {
  // Target: 1 whole GPU with 4000 CPU. node0: 4000 CPU, node1: 8000 CPU, 1 idle GPU each.
  ClusterState s(cluster_of({node_group("a", 1, "A100-80GB", 1, 4000),
                             node_group("b", 1, "A100-80GB", 1, 8000)}),
                 catalog(), kCap);
  auto m = std::make_shared<const FgdModel>(target_of({paper_shape(1, 1000, 1.0, 4000)}));
  FgdScorer scorer(m);
  // CPU-only pod of 2000: node0 keeps 2000 < 4000: the GPU becomes fragment, F 0 -> 1000:
  // 26.89. node1 keeps 6000: F 0 -> 0: 50.
  const std::vector<int64_t> v = scores(scorer, s, share_req(0, 0, 2000));
  EXPECT_EQ(v[0], 26);
  EXPECT_EQ(v[1], 50);
  std::vector<PodSpec> pods(2, testing::pod("p", 0, 1).cpu(4000));
  const Placed p =
      paper_place("fgd", s, share_req(0, 0, 2000), PlacementEnvironment{pods, &catalog()});
  EXPECT_EQ(p.node, std::optional<NodeId>{1});
  FgdDevicePicker picker(m);
  Rng rng(1);
  std::vector<GpuId> out(1, 9999);
  PodRequest cpu_only = share_req(0, 0, 2000);
  EXPECT_TRUE(picker.pick(SchedulingCycle{s, cpu_only, 0, 0.0, rng}, 0, out));
  EXPECT_EQ(out[0], 9999U);  // nothing written
}

TEST(PaperPoliciesFgd, MemoFollowsNodeState) {
  // Two identical 2-GPU nodes; target share 600 (0.5) and whole GPU (0.5).
  ClusterState s(cluster_of({node_group("n", 2, "A100-80GB", 2)}), catalog(), kCap);
  auto m = std::make_shared<const FgdModel>(
      target_of({paper_shape(1, 600, 0.5), paper_shape(1, 1000, 0.5)}));
  const PodRequest pod = share_req(1, 300);
  // Idle {1000, 1000} -> {700, 1000}: 600: 0; 1000: 700 too small -> F = 350: 100*sig(-0.35).
  const int64_t idle_score = fgd_int(0, 350);
  EXPECT_EQ(m->node_score(s, pod, 0), idle_score);
  EXPECT_EQ(m->node_score(s, pod, 1), idle_score);
  // After 300 on node0 GPU1 the node is {1000, 700}: best is 400 vs 350 -> 100*sig(-0.05).
  take(s, 0, 1, 300);
  EXPECT_EQ(m->node_score(s, pod, 0), fgd_int(350, 400));
  EXPECT_EQ(m->node_score(s, pod, 1), idle_score);
  // Node1 in the mirrored state {700, 1000}: same memo entry, same score, but the picker takes
  // the 700 GPU at its own index.
  take(s, 1, 0, 300);
  EXPECT_EQ(m->node_score(s, pod, 1), fgd_int(350, 400));
  EXPECT_EQ(fgd_pick(m, s, pod, 0), std::vector<GpuId>{1});
  EXPECT_EQ(fgd_pick(m, s, pod, 1), std::vector<GpuId>{0});
}

TEST(PaperPoliciesFgd, PerNodeCacheFollowsVersionShapeAndCluster) {
  // One 2-GPU node; target share 600 (0.5) and whole GPU (0.5). Every answer of the model that
  // has been asked before must be a fresh model's answer to the same question.
  const TargetWorkload target = target_of({paper_shape(1, 600, 0.5), paper_shape(1, 1000, 0.5)});
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 2)}), catalog(), kCap);
  auto m = std::make_shared<const FgdModel>(target);
  const auto fresh = [&](const ClusterState& c, const PodRequest& r) {
    const FgdModel f(target);
    return std::pair{f.node_score(c, r, 0), f.best_gpu(c, r, 0)};
  };
  const PodRequest a = share_req(1, 300), b = share_req(1, 600), whole = share_req(1, 1000);
  // Idle {1000, 1000}: a -> {700, 1000}: 700 too small for a whole GPU: F 350.
  EXPECT_EQ(m->best_gpu(s, a, 0), 0);  // asked first: the GPU before the score
  EXPECT_EQ(m->node_score(s, a, 0), fgd_int(0, 350));
  // b -> {400, 1000}: 400 too small for both shapes: F 400.
  EXPECT_EQ(m->node_score(s, b, 0), fgd_int(0, 400));
  EXPECT_EQ(m->node_score(s, whole, 0), fgd_int(0, 0));  // {0, 1000}: F 0
  EXPECT_EQ(m->node_score(s, a, 0), fgd_int(0, 350));    // each shape keeps its own answer
  // A bind moves the node's version: {1000, 700} now (F 350). a on GPU0 -> {700, 700}: F 700;
  // on GPU1 -> {1000, 400}: F 400, the best.
  take(s, 0, 1, 300);
  EXPECT_EQ(m->node_score(s, a, 0), fgd_int(350, 400));
  EXPECT_EQ(m->best_gpu(s, a, 0), 1);
  EXPECT_EQ((std::pair{m->node_score(s, a, 0), m->best_gpu(s, a, 0)}), fresh(s, a));
  EXPECT_EQ((std::pair{m->node_score(s, b, 0), m->best_gpu(s, b, 0)}), fresh(s, b));
  // Another cluster whose node has the same version (one bind) but another state: the model
  // forgets what it cached for the first.
  ClusterState other(cluster_of({node_group("n", 1, "A100-80GB", 2)}), catalog(), kCap);
  take(other, 0, 0, 700);
  ASSERT_EQ(other.version(0), s.version(0));
  EXPECT_EQ((std::pair{m->node_score(other, a, 0), m->best_gpu(other, a, 0)}), fresh(other, a));
  EXPECT_EQ((std::pair{m->node_score(s, a, 0), m->best_gpu(s, a, 0)}), fresh(s, a));
}

TEST(PaperPoliciesFgd, MemoKeepsPodCpuAndNodeCpuApart) {
  // Target: share 500 with 4000 CPU. Node: 6000 CPU, 1 idle GPU. Pod share 100.
  ClusterState s(cluster_of({node_group("n", 1, "A100-80GB", 1, 6000)}), catalog(), kCap);
  auto m = std::make_shared<const FgdModel>(target_of({paper_shape(1, 500, 1.0, 4000)}));
  // CPU 1000: keeps 5000 >= 4000, {900} fits -> F 0 -> 50.
  EXPECT_EQ(m->node_score(s, share_req(1, 100, 1000), 0), 50);
  // CPU 3000: keeps 3000 < 4000 -> all 900 free is fragment -> 100*sig(-0.9).
  EXPECT_EQ(m->node_score(s, share_req(1, 100, 3000), 0), fgd_int(0, 900));
  // The node's own CPU changes the answer too: take 2000 CPU with a CPU-only bind.
  s.bind(0, {}, share_req(0, 0, 2000));
  // Before: 4000 free, fits -> 0. After CPU 1000: 3000 left -> 900 fragment.
  EXPECT_EQ(m->node_score(s, share_req(1, 100, 1000), 0), fgd_int(0, 900));
}

// --- dot-product ---

// node0: A100 x4, 32000 CPU, 8000 CPU taken, frees {1000, 600, 400, 1000}.
// node1: T4 x2, 16000 CPU, idle. Largest node: 32000 CPU, 4 GPUs.
ClusterState dot_cluster() {
  ClusterState s(
      cluster_of({node_group("a", 1, "A100-80GB", 4, 32000), node_group("t", 1, "T4", 2, 16000)}),
      catalog(), kCap);
  take(s, 0, 1, 400, 8000);
  take(s, 0, 2, 600);
  return s;
}

TEST(PaperPoliciesDotProduct, ShareWholeAndCpuOnlyScores) {
  const ClusterState s = dot_cluster();
  DotProductScorer scorer;
  // Largest node: 32000 CPU, 4 GPUs (4000 milli). Node vectors (free CPU, node's total free
  // GPU): node0 (24000/32000, 3000/4000) = (0.75, 0.75); node1 (16000/32000, 2000/4000) =
  // (0.5, 0.5). Score ⌊100 × (1 − dot / 2)⌋.
  // Share 500, CPU 8000: pod (0.25, 500/4000 = 0.125).
  //  node0: 0.1875 + 0.09375 = 0.28125 -> 100 * 0.859375 = 85.9375 -> 85.
  //  node1: 0.125 + 0.0625 = 0.1875 -> 90.625 -> 90.
  std::vector<int64_t> v = scores(scorer, s, share_req(1, 500, 8000));
  EXPECT_EQ(v, (std::vector<int64_t>{85, 90}));
  // 2 whole GPUs, CPU 8000: pod (0.25, 2000/4000 = 0.5).
  //  node0: 0.1875 + 0.375 = 0.5625 -> 71.875 -> 71. node1: 0.125 + 0.25 = 0.375 -> 81.25 -> 81.
  v = scores(scorer, s, share_req(2, 1000, 8000));
  EXPECT_EQ(v, (std::vector<int64_t>{71, 81}));
  // CPU-only 8000: GPU term 0: node0 0.1875 -> 90.625 -> 90; node1 0.125 -> 93.75 -> 93.
  v = scores(scorer, s, share_req(0, 0, 8000));
  EXPECT_EQ(v, (std::vector<int64_t>{90, 93}));
}

TEST(PaperPoliciesDotProduct, PresetChoice) {
  const ClusterState s = dot_cluster();
  // Share 500 CPU 8000 -> node1 (90 > 85), on its least free GPU that fits (both idle: GPU0).
  Placed p = paper_place("dot-product", s, share_req(1, 500, 8000));
  EXPECT_EQ(p.node, std::optional<NodeId>{1});
  EXPECT_EQ(p.local_gpus, std::vector<GpuId>{0});
  // 2 whole GPUs CPU 8000 -> node1 (81 > 71).
  p = paper_place("dot-product", s, share_req(2, 1000, 8000));
  EXPECT_EQ(p.node, std::optional<NodeId>{1});
  EXPECT_EQ(p.local_gpus, (std::vector<GpuId>{0, 1}));
}

// --- gpu-packing ---

TEST(PaperPoliciesGpuPacking, TiersForShareAndWholePods) {
  // node0: 4 GPUs, 400 on GPU1 (free 600). node1: 4 idle. node2: 2 idle. node3: 4 GPUs, GPU0 full.
  ClusterState s(cluster_of({node_group("a", 2, "A100-80GB", 4), node_group("b", 1, "A100-80GB", 2),
                             node_group("c", 1, "A100-80GB", 4)}),
                 catalog(), kCap);
  take(s, 0, 1, 400);
  take(s, 3, 0, 1000);
  GpuPackingScorer scorer;
  // Share 300: node0 takes its fullest fitting GPU (600 free = 60%): 100 - 60/10 = 94.
  //  node1 idle: max(33 - 4, 4) = 29; node2 idle: max(33 - 2, 2) = 31.
  //  node3: fullest fitting is an idle GPU: one fully free GPU used: max(50 - 1, 33) = 49.
  std::vector<int64_t> v = scores(scorer, s, share_req(1, 300));
  EXPECT_EQ(v, (std::vector<int64_t>{94, 29, 31, 49}));
  // Share 700: node0's 600 no longer fits: an idle GPU -> 49.
  v = scores(scorer, s, share_req(1, 700));
  EXPECT_EQ(v, (std::vector<int64_t>{49, 29, 31, 49}));
  // 2 whole GPUs: node0 and node3 use 2 free GPUs: 48.
  v = scores(scorer, s, share_req(2, 1000));
  EXPECT_EQ(v, (std::vector<int64_t>{48, 29, 31, 48}));
  // CPU-only: 0 everywhere.
  v = scores(scorer, s, share_req(0, 0, 1000));
  EXPECT_EQ(v, (std::vector<int64_t>{0, 0, 0, 0}));
  // The preset: share 300 -> node0, GPU1.
  const Placed p = paper_place("gpu-packing", s, share_req(1, 300));
  EXPECT_EQ(p.node, std::optional<NodeId>{0});
  EXPECT_EQ(p.local_gpus, std::vector<GpuId>{1});
  // A share on a fuller GPU scores higher: 345 free = 34% -> 100 - 3 = 97.
  take(s, 0, 1, 255);
  EXPECT_EQ(scores(scorer, s, share_req(1, 300))[0], 97);
}

TEST(PaperPoliciesGpuPacking, TierFloorsAre50And33) {
  // An 8-GPU node with 10 taken on every GPU (990 free = 99% each), hand-built 8 x 100 pod:
  // free_pct 8 * 99 = 792: 100 - 79 = 21 -> raised to the tier floor 50. 2 x 100: 198 -> 81.
  ClusterState s(cluster_of({node_group("a", 1, "A100-80GB", 8)}), catalog(), kCap);
  for (GpuId g = 0; g < 8; ++g) take(s, 0, g, 10);
  GpuPackingScorer scorer;
  EXPECT_EQ(scores(scorer, s, share_req(8, 100))[0], 50);
  EXPECT_EQ(scores(scorer, s, share_req(2, 100))[0], 81);
  // A 20-GPU node with GPU0 in use: 16 whole GPUs: 50 - 16 = 34; 17: 33; 18: 32 -> 33.
  ClusterState big(cluster_of({node_group("b", 1, "A100-80GB", 20)}), catalog(), kCap);
  take(big, 0, 0, 500);
  EXPECT_EQ(scores(scorer, big, share_req(16, 1000))[0], 34);
  EXPECT_EQ(scores(scorer, big, share_req(17, 1000))[0], 33);
  EXPECT_EQ(scores(scorer, big, share_req(18, 1000))[0], 33);
}

// --- gpu-clustering ---

TEST(PaperPoliciesGpuClustering, TiersAndFullness) {
  // Four 2-GPU nodes (largest node 2000 units). Tag 0 = share 500, tag 1 = 1 whole GPU.
  ClusterState s(cluster_of({node_group("n", 4, "A100-80GB", 2)}), catalog(), kCap);
  s.track_shape_tags(2);
  take(s, 0, 0, 500, 0, 0);   // node0: tag 0 only, free 1500
  take(s, 1, 0, 500, 0, 0);   // node1: tags 0 and 1, free 500
  take(s, 1, 1, 1000, 0, 1);  //
  take(s, 3, 0, 1000, 0, 1);  // node3: tag 1 only, free 1000; node2 idle
  EXPECT_EQ(s.distinct_shape_tags(1), 2);
  EXPECT_EQ(s.shape_tag_count(0, 0), 1);
  GpuClusteringScorer scorer;
  // Fullness ⌊25 * (2000 - free) / 2000⌋ in integers: node0 6 (6.25), node1 18 (18.75),
  // node2 0, node3 12 (12.5).
  // Tag-0 pod: node0 same shape only 75 + 6; node1 mixed 50 + 18; node2 idle 25;
  // node3 other shapes only 0 + 12.
  std::vector<int64_t> v = scores(scorer, s, share_req(1, 500, 0, 0));
  EXPECT_EQ(v, (std::vector<int64_t>{81, 68, 25, 12}));
  // Tag-1 pod: node0 other only 6; node1 mixed 68; node2 25; node3 same only 87.
  v = scores(scorer, s, share_req(1, 1000, 0, 1));
  EXPECT_EQ(v, (std::vector<int64_t>{6, 68, 25, 87}));
  // CPU-only: 0.
  v = scores(scorer, s, share_req(0, 0, 100));
  EXPECT_EQ(v, (std::vector<int64_t>{0, 0, 0, 0}));
  // Preset: tag 0 -> node0 on its fullest fitting GPU (GPU0, 500 free); tag 1 -> node3 GPU1
  // (node1 has no free whole GPU and is filtered out).
  Placed p = paper_place("gpu-clustering", s, share_req(1, 500, 0, 0));
  EXPECT_EQ(p.node, std::optional<NodeId>{0});
  EXPECT_EQ(p.local_gpus, std::vector<GpuId>{0});
  p = paper_place("gpu-clustering", s, share_req(1, 1000, 0, 1));
  EXPECT_EQ(p.node, std::optional<NodeId>{3});
  EXPECT_EQ(p.local_gpus, std::vector<GpuId>{1});
  // Unbinding node0's pod makes it idle again: 25.
  PodRequest r = share_req(1, 500, 0, 0);
  const GpuId g0 = s.first_gpu(0);
  s.unbind(0, std::span<const GpuId>(&g0, 1), r);
  EXPECT_EQ(s.distinct_shape_tags(0), 0);
  EXPECT_EQ(scores(scorer, s, r)[0], 25);
}

// --- random-fit ---

TEST(PaperPoliciesRandomFit, ReproducibleBySeed) {
  ClusterState s(cluster_of({node_group("n", 6, "A100-80GB", 2)}), catalog(), kCap);
  std::set<NodeId> seen;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Placed a = paper_place("random-fit", s, share_req(1, 500), {}, seed);
    const Placed b = paper_place("random-fit", s, share_req(1, 500), {}, seed);
    ASSERT_TRUE(a.node.has_value());
    EXPECT_EQ(a.node, b.node) << seed;
    EXPECT_EQ(a.local_gpus, b.local_gpus) << seed;
    seen.insert(*a.node);
  }
  EXPECT_GE(seen.size(), 3U);  // 20 seeds over 6 nodes spread out
  // Whole runs: same seed, same nodes.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 8; ++i) pods.push_back(testing::pod("p", i, 100).milli(500));
  SharingConfig share;
  share.kind = "gpu-share";
  const RunResult r1 = testing::run(cluster_of({node_group("n", 6, "A100-80GB", 2)}), pods,
                                    "random-fit", share, testing::quiet_config(), 7);
  const RunResult r2 = testing::run(cluster_of({node_group("n", 6, "A100-80GB", 2)}), pods,
                                    "random-fit", share, testing::quiet_config(), 7);
  for (size_t i = 0; i < pods.size(); ++i) EXPECT_EQ(r1.pods[i].node, r2.pods[i].node) << i;
}

}  // namespace
}  // namespace slicelab
