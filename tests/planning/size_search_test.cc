// The planner's search on injected checks: known minima, infeasibility, batches of every width,
// non-monotone and flaky checks (the answer always passes its own check).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "planning/size_search.h"

namespace slicelab {
namespace {

BatchCheck counted(const std::function<bool(int)>& meets, int* calls = nullptr) {
  return [meets, calls](std::span<const int> sizes) {
    std::vector<bool> out;
    for (const int s : sizes) {
      out.push_back(meets(s));
      if (calls) ++*calls;
    }
    return out;
  };
}

TEST(SizeSearch, FindsEveryThresholdOfAMonotoneCheck) {
  for (int width = 1; width <= 5; ++width)
    for (int threshold = 1; threshold <= 100; ++threshold) {
      int calls = 0;
      const auto r =
          find_smallest_size(1, 100, width, counted([&](int s) { return s >= threshold; }, &calls));
      ASSERT_TRUE(r.size.has_value()) << threshold;
      EXPECT_EQ(*r.size, threshold) << "width " << width;
      EXPECT_FALSE(r.non_monotone);
      EXPECT_EQ(r.walked_up, 0);
      // Galloping plus bisection: logarithmic, not linear, in the range (+1 verification run).
      if (width == 1) {
        EXPECT_LE(calls, 2 * 7 + 2) << threshold;
      }
    }
}

TEST(SizeSearch, HonoursTheLowerBoundAndReportsProbesAscending) {
  const auto r = find_smallest_size(5, 200, 1, counted([](int s) { return s >= 37; }));
  ASSERT_TRUE(r.size);
  EXPECT_EQ(*r.size, 37);
  ASSERT_FALSE(r.probes.empty());
  EXPECT_EQ(r.probes.front().size, 5);
  for (size_t i = 1; i < r.probes.size(); ++i) EXPECT_LT(r.probes[i - 1].size, r.probes[i].size);
  for (const auto& p : r.probes) EXPECT_EQ(p.meets, p.size >= 37) << p.size;
}

TEST(SizeSearch, MinimumThatAlreadyMeetsIsTheAnswer) {
  const auto r = find_smallest_size(3, 50, 2, counted([](int) { return true; }));
  ASSERT_TRUE(r.size);
  EXPECT_EQ(*r.size, 3);
}

TEST(SizeSearch, NoSizeMeetsMeansInfeasibleAfterTryingTheMaximum) {
  int calls = 0;
  const auto r = find_smallest_size(1, 1000, 1, counted([](int s) { return s > 1000; }, &calls));
  EXPECT_FALSE(r.size.has_value());
  EXPECT_EQ(r.probes.back().size, 1000);
  EXPECT_LE(calls, 12);  // 1, 2, 4, ..., 512, 1000
}

// A dip: sizes 10.. pass except 14. With three probes per round the batch sees 10 pass and 14
// fail: the check is flagged non-monotone, and the answer is a size that was run and passed.
TEST(SizeSearch, NonMonotoneCheckIsFlaggedAndTheAnswerPasses) {
  auto meets = [](int s) { return s >= 10 && s != 14; };
  const auto r = find_smallest_size(1, 64, 3, counted(meets));
  ASSERT_TRUE(r.size);
  EXPECT_EQ(*r.size, 10);
  EXPECT_TRUE(r.non_monotone);
}

// Where the first passing size found sits just above a dip, bisection must not conclude from
// monotonicity that the size below the dip passes.
TEST(SizeSearch, NeverRecommendsASizeInADip) {
  auto meets = [](int s) { return s >= 10 && (s < 12 || s > 13); };
  const auto r = find_smallest_size(1, 64, 1, counted(meets));
  ASSERT_TRUE(r.size);
  EXPECT_TRUE(meets(*r.size)) << *r.size;
}

// A check that passes at 10 the first time and fails when run again (a flaky or non-
// deterministic metric): the verification catches it and walks up to a size that passes.
TEST(SizeSearch, VerificationWalksUpWhenTheAnswerFailsOnReRun) {
  std::map<int, int> runs;
  const BatchCheck flaky = [&](std::span<const int> sizes) {
    std::vector<bool> out;
    for (const int s : sizes) {
      const int n = ++runs[s];
      out.push_back(s > 10 || (s == 10 && n == 1));
    }
    return out;
  };
  const auto r = find_smallest_size(1, 64, 1, flaky);
  ASSERT_TRUE(r.size);
  EXPECT_EQ(*r.size, 11);
  EXPECT_EQ(r.walked_up, 1);
  EXPECT_GE(runs[11], 1);
  // The curve records what the last run of 10 said.
  for (const auto& p : r.probes)
    if (p.size == 10) {
      EXPECT_FALSE(p.meets);
    }
}

// Random checks, monotone or not: an answer always passes, and the maximum passing implies an
// answer; on monotone checks the answer is the exact minimum.
TEST(SizeSearch, RandomChecksNeverYieldAFailingSize) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int max = 1 + static_cast<int>(rng() % 80);
    std::vector<bool> table(static_cast<size_t>(max) + 1);
    const bool monotone = trial % 2 == 0;
    const int threshold = 1 + static_cast<int>(rng() % static_cast<unsigned>(max + 1));
    for (int s = 1; s <= max; ++s)
      table[static_cast<size_t>(s)] = monotone ? s >= threshold : (rng() % 3 == 0);
    auto meets = [&](int s) { return static_cast<bool>(table[static_cast<size_t>(s)]); };
    const int width = 1 + trial % 4;
    const auto r = find_smallest_size(1, max, width, counted(meets));
    if (r.size) {
      EXPECT_TRUE(meets(*r.size)) << trial;
    }
    if (meets(max)) {
      EXPECT_TRUE(r.size.has_value()) << trial;
    }
    if (monotone) {
      if (threshold <= max) {
        ASSERT_TRUE(r.size) << trial;
        EXPECT_EQ(*r.size, threshold) << trial;
      } else {
        EXPECT_FALSE(r.size) << trial;
      }
    }
  }
}

TEST(SizeSearch, RejectsAnEmptyRange) {
  EXPECT_THROW(find_smallest_size(5, 4, 1, counted([](int) { return true; })),
               std::invalid_argument);
  EXPECT_THROW(find_smallest_size(0, 4, 1, counted([](int) { return true; })),
               std::invalid_argument);
}

}  // namespace
}  // namespace slicelab
