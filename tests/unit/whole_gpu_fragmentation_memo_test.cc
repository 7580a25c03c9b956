// Pins down WholeGpuFragmentationMemo: it gives node_fragmentation's value bit for bit on random
// nodes and targets, remembers only nodes of wholly free or taken GPUs, and stays exact when
// its table is full or the target has too many shapes to key.
#include "sim/metrics/whole_gpu_fragmentation_memo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace slicelab {
namespace {

TargetWorkload random_target(std::mt19937_64& rng, size_t shapes) {
  TargetWorkload t;
  double total = 0;
  for (size_t i = 0; i < shapes; ++i) {
    TargetShape s;
    s.cpu_milli = static_cast<int64_t>(rng() % 5) * 8000;
    s.gpu_count = static_cast<int>(rng() % 5);  // 0: CPU-only
    s.gpu_milli = s.gpu_count == 0 ? 0 : (rng() % 2 == 0 ? 1000 : 100 * (1 + rng() % 9));
    s.model_mask = rng() % 4 == 0 ? 0b10 : ~uint64_t{0};
    s.freq = 1.0 + static_cast<double>(rng() % 100);
    total += s.freq;
    t.shapes.push_back(s);
  }
  for (auto& s : t.shapes) s.freq /= total;
  return t;
}

TEST(WholeGpuFragmentationMemo, GivesTheFunctionsValueOnRandomNodes) {
  std::mt19937_64 rng(7);
  for (int c = 0; c < 200; ++c) {
    const TargetWorkload target = random_target(rng, 1 + rng() % 20);
    WholeGpuFragmentationMemo memo(target);
    for (int i = 0; i < 300; ++i) {
      std::vector<int> free(1 + rng() % 8);
      const bool whole = rng() % 4 != 0;
      for (int& f : free) f = whole ? (rng() % 2 == 0 ? 0 : 1000) : static_cast<int>(rng() % 1001);
      const int64_t cpu = static_cast<int64_t>(rng() % 40000);
      const auto model = static_cast<uint16_t>(rng() % 3);
      // Asked twice: the second answer may come from the table.
      for (int again = 0; again < 2; ++again)
        ASSERT_EQ(memo(cpu, model, free), node_fragmentation(target, cpu, model, free))
            << "case " << c << " node " << i;
    }
    if (target.shapes.size() > WholeGpuFragmentationMemo::kMaxShapes) {
      EXPECT_EQ(memo.remembered(), 0U) << c;
    }
  }
}

TEST(WholeGpuFragmentationMemo, RemembersOnlyWholeGpuNodesUntilItsTableIsFull) {
  TargetWorkload target;
  target.shapes = {TargetShape{4000, 1, 300, ~uint64_t{0}, 0.5},
                   TargetShape{0, 2, 1000, ~uint64_t{0}, 0.5}};
  WholeGpuFragmentationMemo memo(target);
  // A GPU partly free: computed, not kept.
  const std::vector<int> partial{1000, 700, 0, 0};
  EXPECT_EQ(memo(8000, 0, partial), node_fragmentation(target, 8000, 0, partial));
  EXPECT_EQ(memo.remembered(), 0U);
  // The same whole-GPU node under CPU amounts that satisfy the same shapes: one entry.
  const std::vector<int> two_free{1000, 0, 1000, 0};
  for (const int64_t cpu : {4000, 5000, 64000})
    EXPECT_EQ(memo(cpu, 0, two_free), node_fragmentation(target, cpu, 0, two_free));
  EXPECT_EQ(memo.remembered(), 1U);
  // Too little CPU for the first shape: another entry, another value.
  EXPECT_EQ(memo(1000, 0, two_free), node_fragmentation(target, 1000, 0, two_free));
  EXPECT_EQ(memo.remembered(), 2U);
  // More distinct nodes than slots (models x GPU counts x free GPUs): all exact, table bounded.
  for (uint16_t model = 0; model < 40; ++model)
    for (size_t gpus = 1; gpus <= 16; ++gpus)
      for (size_t f = 0; f <= gpus; f += 3) {
        std::vector<int> free(gpus, 0);
        for (size_t g = 0; g < f; ++g) free[g] = 1000;
        ASSERT_EQ(memo(8000, model, free), node_fragmentation(target, 8000, model, free));
      }
  EXPECT_EQ(memo.remembered(), WholeGpuFragmentationMemo::kSlots - 1);
  EXPECT_EQ(memo(1000, 0, two_free), node_fragmentation(target, 1000, 0, two_free));
}

}  // namespace
}  // namespace slicelab
