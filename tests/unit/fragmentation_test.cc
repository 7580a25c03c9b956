// Pins down the FGD fragmentation measure (node_fragmentation) on hand-computed nodes, case by
// case, and how TargetWorkload::from_pods picks, weighs and orders the popular pod shapes as the
// paper's simulator does (pkg/utils/frag.go GetTypicalPods, GetNodePodFrag).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/metrics/fragmentation.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::model_index;

TargetShape shape(int gpu_count, int gpu_milli, double freq, int64_t cpu = 0,
                  uint64_t mask = ~uint64_t{0}) {
  return TargetShape{cpu, gpu_count, gpu_milli, mask, freq};
}

TargetWorkload one(TargetShape s) {
  TargetWorkload t;
  t.shapes.push_back(s);
  return t;
}

uint16_t a100() {
  return static_cast<uint16_t>(model_index("A100-80GB"));
}
uint16_t t4() {
  return static_cast<uint16_t>(model_index("T4"));
}

// The 8-GPU node of the examples: frees {1000, 1000, 700, 300, 0, 0, 0, 0}, 3000 milli in all.
const std::vector<int> kNode = {1000, 1000, 700, 300, 0, 0, 0, 0};

// --- node_fragmentation: one shape at a time ---

TEST(FragmentationNode, ShareShapeFitsOnlyGpusTooSmallCount) {
  // share 500: GPUs with >= 500 free: 1000, 1000, 700 -> fits; too small: 300 + 0*4 = 300.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 500, 1.0)), 16000, a100(), kNode), 300.0);
  // share 800: fitting 1000, 1000; too small: 700 + 300 = 1000.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 800, 1.0)), 16000, a100(), kNode), 1000.0);
  // share 300: fitting 1000, 1000, 700, 300 (>= is enough); too small: only zeros -> 0.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 300, 1.0)), 16000, a100(), kNode), 0.0);
}

TEST(FragmentationNode, WholeGpuShapesCountPartialGpus) {
  // one whole GPU: fitting 1000, 1000; partial GPUs 700 + 300 = 1000 are fragment.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 1000, 1.0)), 16000, a100(), kNode), 1000.0);
  // two whole GPUs: 2 idle GPUs >= 2 -> fits; fragment again 700 + 300 = 1000.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(2, 1000, 1.0)), 16000, a100(), kNode), 1000.0);
}

TEST(FragmentationNode, TooFewGpusMakesAllFreeMilliFragment) {
  // three whole GPUs: only 2 idle -> cannot fit: all 3000 free milli are fragment.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(3, 1000, 1.0)), 16000, a100(), kNode), 3000.0);
  // share 500 x 4 GPUs (hand-built): only 3 GPUs with >= 500 -> 3000.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(4, 500, 1.0)), 16000, a100(), kNode), 3000.0);
}

TEST(FragmentationNode, LackOfCpuMakesAllFreeMilliFragment) {
  // share 500 needs 4000 CPU: with 4000 free it fits (>=) -> 300; with 3999 -> all 3000.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 500, 1.0, 4000)), 4000, a100(), kNode), 300.0);
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 500, 1.0, 4000)), 3999, a100(), kNode), 3000.0);
}

TEST(FragmentationNode, ModelNotAllowedMakesAllFreeMilliFragment) {
  const uint64_t only_a100 = uint64_t{1} << a100();
  // On the A100 node the shape fits: 300. On a T4 node it never can: all 3000.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 500, 1.0, 0, only_a100)), 16000, a100(), kNode),
                   300.0);
  EXPECT_DOUBLE_EQ(node_fragmentation(one(shape(1, 500, 1.0, 0, only_a100)), 16000, t4(), kNode),
                   3000.0);
}

TEST(FragmentationNode, ShapesWeighByFrequency) {
  TargetWorkload t;
  t.shapes = {shape(1, 500, 0.5), shape(1, 1000, 0.25), shape(3, 1000, 0.25)};
  // 0.5 * 300 + 0.25 * 1000 + 0.25 * 3000 = 150 + 250 + 750 = 1150.
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 16000, a100(), kNode), 1150.0);
  // With 1000 CPU free and the share shape needing 2000 CPU:
  // 0.5 * 3000 + 0.25 * 1000 + 0.25 * 3000 = 1500 + 250 + 750 = 2500.
  t.shapes[0].cpu_milli = 2000;
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 1000, a100(), kNode), 2500.0);
}

TEST(FragmentationNode, CpuOnlyShapeCountsAllFreeMilliWhetherItsCpuFitsOrNot) {
  // GetNodePodFrag: xl_satisfied when the CPU fits, xr_lack_cpu when not; NodeGpuShareFragAmount
  // counts all free GPU milli for both, and only q3_satisfied is left out of the sum.
  const TargetShape cpu_only{4000, 0, 0, ~uint64_t{0}, 1.0};
  EXPECT_DOUBLE_EQ(node_fragmentation(one(cpu_only), 16000, a100(), kNode), 3000.0);
  EXPECT_DOUBLE_EQ(node_fragmentation(one(cpu_only), 1000, a100(), kNode), 3000.0);
  // Weighted like any shape: 0.4 * 3000 (CPU-only) + 0.6 * 300 (share 500 fits) = 1380.
  TargetWorkload t;
  t.shapes = {TargetShape{4000, 0, 0, ~uint64_t{0}, 0.4}, shape(1, 500, 0.6)};
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 16000, a100(), kNode), 1380.0);
  // No free GPU milli: nothing to fragment.
  EXPECT_DOUBLE_EQ(node_fragmentation(one(cpu_only), 16000, a100(), std::vector<int>(8, 0)), 0.0);
}

TEST(FragmentationNode, FullOrEmptyNodes) {
  TargetWorkload t;
  t.shapes = {shape(1, 500, 0.5), shape(3, 1000, 0.5)};
  // No free GPU milli: nothing to fragment, even for shapes that cannot fit.
  const std::vector<int> full(8, 0);
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 0, a100(), full), 0.0);
  // An idle 8-GPU node: every shape fits, no partial GPU -> 0.
  const std::vector<int> idle(8, 1000);
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 16000, a100(), idle), 0.0);
  // An idle 2-GPU node: the 3-GPU shape cannot fit -> 0.5 * 2000 = 1000.
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 16000, a100(), std::vector<int>{1000, 1000}), 1000.0);
  // An empty target workload: 0 on any node.
  EXPECT_DOUBLE_EQ(node_fragmentation(TargetWorkload{}, 16000, a100(), kNode), 0.0);
}

TEST(FragmentationNode, ManySharesEachCountTheirOwnGpus) {
  // Six shares, more than the function keeps passes for, and repeats of a kept one (100) and of
  // one past the kept four (500): each shape still sees its own fitting and too-small GPUs.
  // Shares 100..300 fit every GPU with room (too small: zeros); 400..600 leave the 300 GPU.
  TargetWorkload t;
  for (const int milli : {100, 200, 300, 400, 500, 600, 100, 500})
    t.shapes.push_back(shape(1, milli, 0.125));
  EXPECT_DOUBLE_EQ(node_fragmentation(t, 16000, a100(), kNode), 0.125 * 300 * 4);
  // Two GPUs of a share apiece: 600 fits only the 1000s and 700 (3 GPUs, enough); 800 only
  // the two 1000s; three GPUs of 800 cannot fit (all 3000 free milli).
  TargetWorkload u;
  for (const auto& [count, milli] : {std::pair{2, 600}, {2, 800}, {3, 800}, {1, 100}, {2, 600}})
    u.shapes.push_back(shape(count, milli, 0.2));
  EXPECT_DOUBLE_EQ(node_fragmentation(u, 16000, a100(), kNode),
                   0.2 * 300 + 0.2 * 1000 + 0.2 * 3000 + 0.2 * 0 + 0.2 * 300);
}

// --- TargetWorkload::from_pods ---

PodSpec gpu_pod(int count, int milli, int64_t cpu = 0, std::vector<std::string> models = {}) {
  PodSpec p;
  p.name = "p";
  p.duration_s = 1;
  p.gpu_count = count;
  p.gpu_milli = milli;
  p.cpu_milli = cpu;
  p.allowed_models = std::move(models);
  return p;
}

std::vector<PodSpec> repeat(const PodSpec& p, int n) {
  return std::vector<PodSpec>(static_cast<size_t>(n), p);
}

void append(std::vector<PodSpec>& to, const std::vector<PodSpec>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

TEST(FragmentationTarget, CoverageCutAndRenormalisation) {
  // 20 GPU pods: X (share 500) x10, Y (1 whole GPU) x6, Z (2 GPUs) x3, W (share 250) x1.
  std::vector<PodSpec> pods;
  append(pods, repeat(gpu_pod(1, 500), 10));
  append(pods, repeat(gpu_pod(2, 1000), 3));
  append(pods, repeat(gpu_pod(1, 250), 1));
  append(pods, repeat(gpu_pod(1, 1000), 6));
  // 95% of 20 = 19: after X 10 < 19, after Y 16 < 19, after Z 19 -> stop; W is left out.
  const TargetWorkload t = TargetWorkload::from_pods(pods, catalog());
  ASSERT_EQ(t.shapes.size(), 3U);
  EXPECT_EQ(t.shapes[0].gpu_milli, 500);
  EXPECT_EQ(t.shapes[1].gpu_count, 1);
  EXPECT_EQ(t.shapes[1].gpu_milli, 1000);
  EXPECT_EQ(t.shapes[2].gpu_count, 2);
  // Renormalised over the 19 covered pods: 10/19, 6/19, 3/19.
  EXPECT_DOUBLE_EQ(t.shapes[0].freq, 10.0 / 19.0);
  EXPECT_DOUBLE_EQ(t.shapes[1].freq, 6.0 / 19.0);
  EXPECT_DOUBLE_EQ(t.shapes[2].freq, 3.0 / 19.0);
  EXPECT_EQ(t.shapes[0].model_mask, ~uint64_t{0});

  // coverage 1.0 keeps W too: freqs over 20.
  const TargetWorkload all = TargetWorkload::from_pods(pods, catalog(), 1.0);
  ASSERT_EQ(all.shapes.size(), 4U);
  EXPECT_EQ(all.shapes[3].gpu_milli, 250);
  EXPECT_DOUBLE_EQ(all.shapes[3].freq, 1.0 / 20.0);
  EXPECT_DOUBLE_EQ(all.shapes[0].freq, 0.5);
  // coverage 0.5: 10 of 20 reached with X alone -> X with freq 1.
  const TargetWorkload half = TargetWorkload::from_pods(pods, catalog(), 0.5);
  ASSERT_EQ(half.shapes.size(), 1U);
  EXPECT_DOUBLE_EQ(half.shapes[0].freq, 1.0);
}

TEST(FragmentationTarget, CpuOnlyPodsAreShapesAndCountInTheThreshold) {
  // 10 CPU-only pods (4000 CPU), 3 share-500 pods, 1 whole-GPU pod: 14 pods, 95% = 13.3.
  // CPU-only first (10 < 13.3), share 500 (13 < 13.3), whole GPU (14): all kept, freqs /14.
  std::vector<PodSpec> pods;
  append(pods, repeat(gpu_pod(0, 1000, 4000), 10));
  append(pods, repeat(gpu_pod(1, 500), 3));
  append(pods, repeat(gpu_pod(1, 1000), 1));
  const TargetWorkload t = TargetWorkload::from_pods(pods, catalog());
  ASSERT_EQ(t.shapes.size(), 3U);
  EXPECT_EQ(t.shapes[0].gpu_count, 0);
  EXPECT_EQ(t.shapes[0].gpu_milli, 0);  // a CPU-only pod asks for no GPU share
  EXPECT_EQ(t.shapes[0].cpu_milli, 4000);
  EXPECT_DOUBLE_EQ(t.shapes[0].freq, 10.0 / 14.0);
  EXPECT_EQ(t.shapes[1].gpu_milli, 500);
  EXPECT_DOUBLE_EQ(t.shapes[1].freq, 3.0 / 14.0);
  EXPECT_EQ(t.shapes[2].gpu_milli, 1000);
  EXPECT_DOUBLE_EQ(t.shapes[2].freq, 1.0 / 14.0);
  // Coverage 0.9: 12.6 of 14 -> CPU-only (10), share 500 (13) crosses it and is kept; the
  // whole-GPU shape is cut and the two kept renormalise over 13.
  const TargetWorkload c = TargetWorkload::from_pods(pods, catalog(), 0.9);
  ASSERT_EQ(c.shapes.size(), 2U);
  EXPECT_DOUBLE_EQ(c.shapes[0].freq, 10.0 / 13.0);
  EXPECT_DOUBLE_EQ(c.shapes[1].freq, 3.0 / 13.0);
  // Only CPU-only pods: one CPU-only shape. No pods: an empty target.
  const TargetWorkload cpu = TargetWorkload::from_pods(repeat(gpu_pod(0, 1000, 1), 5), catalog());
  ASSERT_EQ(cpu.shapes.size(), 1U);
  EXPECT_EQ(cpu.shapes[0].gpu_count, 0);
  EXPECT_DOUBLE_EQ(cpu.shapes[0].freq, 1.0);
  EXPECT_TRUE(TargetWorkload::from_pods({}, catalog()).shapes.empty());
}

TEST(FragmentationTarget, ManyShapesAreCountedAsFewAre) {
  // Forty shapes (more than the short list the count starts in), shape i with i + 1 pods,
  // interleaved; shape 3 names models before the list spills into the map, shape 37 after.
  const uint64_t a100_bit = uint64_t{1} << a100();
  const uint64_t t4_bit = uint64_t{1} << t4();
  auto pod_of = [](int i) {
    std::vector<std::string> models;
    if (i == 3) models = {"T4"};
    if (i == 37) models = {"A100-80GB"};
    return gpu_pod(1, 10 + i, 0, models);
  };
  std::vector<PodSpec> pods;
  for (int round = 0; round < 40; ++round)
    for (int i = round; i < 40; ++i) pods.push_back(pod_of(i));
  const TargetWorkload t = TargetWorkload::from_pods(pods, catalog(), 1.0);
  ASSERT_EQ(t.shapes.size(), 40U);
  const double total = 40.0 * 41.0 / 2.0;
  for (size_t k = 0; k < 40; ++k) {
    const int i = 39 - static_cast<int>(k);  // most pods first
    EXPECT_EQ(t.shapes[k].gpu_milli, 10 + i) << k;
    EXPECT_DOUBLE_EQ(t.shapes[k].freq, (i + 1) / total) << k;
    const uint64_t mask = i == 3 ? t4_bit : i == 37 ? a100_bit : ~uint64_t{0};
    EXPECT_EQ(t.shapes[k].model_mask, mask) << k;
  }
}

TEST(FragmentationTarget, EqualCountsOrderByTheLargerShapeFirst) {
  const uint64_t a100_bit = uint64_t{1} << a100();
  const uint64_t t4_bit = uint64_t{1} << t4();
  // Six shapes, two pods each. sort.Reverse of PodResource.Less: larger CPU first, then larger
  // share, larger GPU count, larger type string ("A100-80GB|T4" > "A100-80GB" > "").
  std::vector<PodSpec> pods;
  append(pods, repeat(gpu_pod(1, 500, 0, {"A100-80GB", "T4"}), 2));
  append(pods, repeat(gpu_pod(1, 500, 0), 2));
  append(pods, repeat(gpu_pod(0, 1000, 2000), 2));  // CPU-only, 2000 CPU
  append(pods, repeat(gpu_pod(1, 500, 2000), 2));
  append(pods, repeat(gpu_pod(1, 500, 0, {"A100-80GB"}), 2));
  append(pods, repeat(gpu_pod(2, 1000, 0), 2));
  const TargetWorkload t = TargetWorkload::from_pods(pods, catalog(), 1.0);
  ASSERT_EQ(t.shapes.size(), 6U);
  // (2000 CPU, share 500) > (2000 CPU, CPU-only: share 0).
  EXPECT_EQ(t.shapes[0].cpu_milli, 2000);
  EXPECT_EQ(t.shapes[0].gpu_count, 1);
  EXPECT_EQ(t.shapes[1].cpu_milli, 2000);
  EXPECT_EQ(t.shapes[1].gpu_count, 0);
  // 0 CPU: whole GPUs x2 (share 1000) before share 500; among those, by type string.
  EXPECT_EQ(t.shapes[2].gpu_count, 2);
  EXPECT_EQ(t.shapes[3].model_mask, a100_bit | t4_bit);
  EXPECT_EQ(t.shapes[4].model_mask, a100_bit);
  EXPECT_EQ(t.shapes[5].model_mask, ~uint64_t{0});
  for (const auto& sh : t.shapes) EXPECT_DOUBLE_EQ(sh.freq, 1.0 / 6.0);

  // Reversed input: the same shapes in the same order.
  std::vector<PodSpec> reversed(pods.rbegin(), pods.rend());
  const TargetWorkload r = TargetWorkload::from_pods(reversed, catalog(), 1.0);
  ASSERT_EQ(r.shapes.size(), 6U);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r.shapes[i].cpu_milli, t.shapes[i].cpu_milli) << i;
    EXPECT_EQ(r.shapes[i].gpu_count, t.shapes[i].gpu_count) << i;
    EXPECT_EQ(r.shapes[i].model_mask, t.shapes[i].model_mask) << i;
  }
}

TEST(FragmentationTarget, TieAtTheCoverageCutGoesToTheLargerShape) {
  // 1 whole GPU x2, share 300 x1, share 700 x1: 95% of 4 = 3.8. Whole GPU first (2), then the
  // tie between 300 and 700 goes to 700 (larger share) -> 3 < 3.8, then 300 -> 4.
  std::vector<PodSpec> pods;
  append(pods, repeat(gpu_pod(1, 300), 1));
  append(pods, repeat(gpu_pod(1, 1000), 2));
  append(pods, repeat(gpu_pod(1, 700), 1));
  TargetWorkload t = TargetWorkload::from_pods(pods, catalog());
  ASSERT_EQ(t.shapes.size(), 3U);
  EXPECT_EQ(t.shapes[0].gpu_milli, 1000);
  EXPECT_EQ(t.shapes[1].gpu_milli, 700);
  EXPECT_EQ(t.shapes[2].gpu_milli, 300);
  // coverage 0.7: 2.8 of 4 -> whole GPU (2), then 700 (3) -> 300 left out; freqs 2/3, 1/3.
  t = TargetWorkload::from_pods(pods, catalog(), 0.7);
  ASSERT_EQ(t.shapes.size(), 2U);
  EXPECT_EQ(t.shapes[1].gpu_milli, 700);
  EXPECT_DOUBLE_EQ(t.shapes[0].freq, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(t.shapes[1].freq, 1.0 / 3.0);
}

TEST(FragmentationTarget, TraceSpellingKeysTheShapeRepeatedModelsIncluded) {
  // The paper's simulator keys a shape's GPU type on the pod's annotation as written
  // (GetPodResource, pkg/utils/utils.go), so a trace's "A|T|T" and "A|T" are two shapes although
  // they allow the same models. 20 pods: share 500 on A100 or T4, 10 spelled "A100-80GB|T4" and
  // 1 "A100-80GB|T4|T4"; 9 whole-GPU pods on any model.
  const std::vector<std::string> models = {"A100-80GB", "T4"};
  const auto spelled = [&](const char* written) {
    PodSpec p = gpu_pod(1, 500);
    p.allowed_models = ModelList(models, written);
    return p;
  };
  std::vector<PodSpec> pods;
  append(pods, repeat(spelled("A100-80GB|T4"), 10));
  append(pods, repeat(spelled("A100-80GB|T4|T4"), 1));
  append(pods, repeat(gpu_pod(1, 1000), 9));
  // The rule it replaces: the models joined, each once (what a list without spelling gives).
  std::vector<PodSpec> merged = pods;
  for (PodSpec& p : merged)
    if (!p.allowed_models.empty()) p.allowed_models = p.allowed_models.to_vector();
  const uint64_t mask = (uint64_t{1} << a100()) | (uint64_t{1} << t4());

  // All shapes kept: "A|T" 10/20, whole GPU 9/20, "A|T|T" 1/20, with "A|T"'s mask.
  const TargetWorkload all = TargetWorkload::from_pods(pods, catalog(), 1.0);
  ASSERT_EQ(all.shapes.size(), 3U);
  EXPECT_EQ(all.shapes[0].model_mask, mask);
  EXPECT_DOUBLE_EQ(all.shapes[0].freq, 10.0 / 20.0);
  EXPECT_EQ(all.shapes[1].gpu_milli, 1000);
  EXPECT_DOUBLE_EQ(all.shapes[1].freq, 9.0 / 20.0);
  EXPECT_EQ(all.shapes[2].gpu_milli, 500);
  EXPECT_EQ(all.shapes[2].model_mask, mask);
  EXPECT_DOUBLE_EQ(all.shapes[2].freq, 1.0 / 20.0);
  // Split or merged, two shapes of equal size and mask leave a node's F the same while both
  // are kept (0.5 x 300 + 0.45 x 1000 + 0.05 x 300 = 615 on kNode; up to rounding).
  const TargetWorkload all_merged = TargetWorkload::from_pods(merged, catalog(), 1.0);
  ASSERT_EQ(all_merged.shapes.size(), 2U);
  EXPECT_DOUBLE_EQ(all_merged.shapes[0].freq, 11.0 / 20.0);
  EXPECT_NEAR(node_fragmentation(all, 0, a100(), kNode), 615.0, 1e-9);
  EXPECT_NEAR(node_fragmentation(all_merged, 0, a100(), kNode), 615.0, 1e-9);

  // The 95% cut is where they differ: 19 of 20 pods. Split: "A|T" (10 < 19), whole GPU (19):
  // stop, "A|T|T" is left out, freqs 10/19 and 9/19. Merged: "A|T" 11 < 19, whole GPU 20: both
  // kept, freqs 11/20 and 9/20.
  const TargetWorkload split = TargetWorkload::from_pods(pods, catalog());
  ASSERT_EQ(split.shapes.size(), 2U);
  EXPECT_DOUBLE_EQ(split.shapes[0].freq, 10.0 / 19.0);
  EXPECT_DOUBLE_EQ(split.shapes[1].freq, 9.0 / 19.0);
  const TargetWorkload one_shape = TargetWorkload::from_pods(merged, catalog());
  ASSERT_EQ(one_shape.shapes.size(), 2U);
  EXPECT_DOUBLE_EQ(one_shape.shapes[0].freq, 11.0 / 20.0);
  EXPECT_DOUBLE_EQ(one_shape.shapes[1].freq, 9.0 / 20.0);
  // On kNode (A100, frees 1000, 1000, 700, 300): share 500 leaves 300, a whole GPU 700 + 300.
  // Split: 10/19 x 300 + 9/19 x 1000 = 12000/19; merged: 11/20 x 300 + 9/20 x 1000 = 615.
  EXPECT_NEAR(node_fragmentation(split, 0, a100(), kNode), 12000.0 / 19.0, 1e-9);
  EXPECT_NEAR(node_fragmentation(one_shape, 0, a100(), kNode), 615.0, 1e-9);
  // FGD scores a placement by F's growth, and the two rules score it differently. Placing a
  // share-500 pod on the 1000-free GPU of kNode (frees then 1000, 700, 500, 300): share 500
  // leaves 300 and a whole GPU 1500. Split: 10/19 x 300 + 9/19 x 1500 = 16500/19, growth
  // 4500/19 (236.84); merged: 11/20 x 300 + 9/20 x 1500 = 840, growth 225.
  const std::vector<int> after = {1000, 500, 700, 300, 0, 0, 0, 0};
  EXPECT_NEAR(
      node_fragmentation(split, 0, a100(), after) - node_fragmentation(split, 0, a100(), kNode),
      4500.0 / 19.0, 1e-9);
  EXPECT_NEAR(node_fragmentation(one_shape, 0, a100(), after) -
                  node_fragmentation(one_shape, 0, a100(), kNode),
              225.0, 1e-9);
}

}  // namespace
}  // namespace slicelab

namespace slicelab::class_order {

TEST(Fragmentation, ClassesAreSummedInThePeerSimulatorsOrder) {
  // NodeGpuShareFragAmount adds each shape's amount to its class, FragAmountSumExceptQ3 sums the
  // classes in order (q1, q2, q4, xl, xr, no_access). Node: GPUs {700, 300} free, CPU plenty.
  // Shapes in target order: share 500 (fits: q3, the 300 GPU -> q2), CPU-only (xl, all 1000),
  // share 800 (fits nowhere: q2, all 1000).
  const double f1 = 0.05, f2 = 0.9, f3 = 1 - f1 - f2;
  TargetWorkload t;
  t.shapes = {TargetShape{0, 1, 500, ~uint64_t{0}, f1}, TargetShape{0, 0, 0, ~uint64_t{0}, f2},
              TargetShape{0, 1, 800, ~uint64_t{0}, f3}};
  const std::vector<int> free{700, 300};
  const double q2 = (0.0 + f1 * 300) + f3 * 1000;
  const double xl = 0.0 + f2 * 1000;
  const double by_class = ((((0.0 + 0.0) + q2) + 0.0) + xl) + 0.0 + 0.0;
  const double by_shape = ((0.0 + f1 * 300) + f2 * 1000) + f3 * 1000;
  ASSERT_NE(by_class, by_shape);  // the order shows in the last bit here
  EXPECT_EQ(node_fragmentation(t, 64000, 0, free), by_class);
}

}  // namespace slicelab::class_order
