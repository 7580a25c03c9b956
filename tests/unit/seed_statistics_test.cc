// The statistics every multi-seed figure rests on (sim/metrics/seed_statistics.h), against values
// computed by hand (Student's t quantiles from the standard table).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "sim/metrics/seed_statistics.h"
#include "sim/scenario/replications.h"

namespace slicelab {
namespace {

TEST(SeedStatistics, TQuantilesMatchTheTable) {
  EXPECT_NEAR(t_quantile(1), 12.7062, 1e-4);
  EXPECT_NEAR(t_quantile(4), 2.7764, 1e-4);
  EXPECT_NEAR(t_quantile(9), 2.2622, 1e-4);
  EXPECT_NEAR(t_quantile(1000), 1.9623, 1e-4);
}

TEST(SeedStatistics, ConfidenceIntervalOfAMean) {
  // 1..5: mean 3, sample sd sqrt(10/4) = 1.5811, t(4) = 2.7764: half width 2.7764 * 1.5811 /
  // sqrt 5.
  const std::vector<double> v = {4, 1, 5, 2, 3};
  const Estimate e = estimate(v);
  EXPECT_EQ(e.n, 5U);
  EXPECT_DOUBLE_EQ(e.mean, 3);
  EXPECT_NEAR(e.stddev, 1.58114, 1e-5);
  ASSERT_TRUE(e.half_width);
  EXPECT_NEAR(*e.half_width, 1.96324, 1e-4);
  EXPECT_NEAR(e.low(), 1.03676, 1e-4);
  EXPECT_DOUBLE_EQ(e.min, 1);
  EXPECT_DOUBLE_EQ(e.max, 5);
  // One seed: a mean, no interval (noise unknown), and no seeds at all: nothing.
  const std::vector<double> one = {7};
  EXPECT_FALSE(estimate(one).half_width);
  EXPECT_EQ(estimate(std::vector<double>{}).n, 0U);
}

std::vector<std::optional<double>> opt(std::vector<double> v) {
  return {v.begin(), v.end()};
}

TEST(SeedStatistics, PairedDifferenceSeesThroughTheWorkloadsOwnVariation) {
  // Seeds vary a lot (10..30) but b is always 1 above a: beyond noise, though an unpaired test
  // over these spreads would call it noise.
  const auto same_step = paired_difference(opt({10, 20, 30}), opt({11, 21, 31}));
  EXPECT_DOUBLE_EQ(same_step.difference.mean, -1);
  EXPECT_EQ(same_step.beyond_noise, true);
  // Differences -2, 3, -3: mean -2/3, sd 3.2146, t(2) = 4.3027: half width 7.985 > 0.667.
  const auto noisy = paired_difference(opt({10, 20, 30}), opt({12, 17, 33}));
  EXPECT_NEAR(noisy.difference.mean, -2.0 / 3, 1e-12);
  ASSERT_TRUE(noisy.difference.half_width);
  EXPECT_NEAR(*noisy.difference.half_width, 7.9855, 1e-3);
  EXPECT_EQ(noisy.beyond_noise, false);
  // Differences -1, -1.2, -0.8, -1.1, -0.9: mean -1, sd 0.15811, half width 0.19632 < 1.
  const auto clear = paired_difference(opt({5, 5, 5, 5, 5}), opt({6, 6.2, 5.8, 6.1, 5.9}));
  EXPECT_NEAR(*clear.difference.half_width, 0.19632, 1e-4);
  EXPECT_EQ(clear.beyond_noise, true);
  // Identical in every seed: no difference at all. One seed pairs up: noise unknown.
  EXPECT_EQ(paired_difference(opt({1, 2}), opt({1, 2})).beyond_noise, false);
  EXPECT_FALSE(paired_difference(opt({1}), opt({2})).beyond_noise);
  // A seed where one side has no value is left out of the pairs.
  const std::vector<std::optional<double>> gap = {1, std::nullopt, 3};
  EXPECT_EQ(paired_difference(gap, opt({2, 9, 4})).difference.n, 2U);
}

TEST(SeedStatistics, SeedsToSeparateAtTheObservedVariance) {
  // Mean 1, sd 2: the smallest n with t(n-1) * 2 / sqrt(n) < 1 is 18 (t(17) = 2.1098 gives
  // 0.9946; n = 17, t(16) = 2.1199, gives 1.0283).
  Estimate d;
  d.n = 10;
  d.mean = 1;
  d.stddev = 2;
  EXPECT_EQ(seeds_to_separate(d), 18U);
  d.mean = 0;
  EXPECT_FALSE(seeds_to_separate(d));
}

TEST(Replications, TheSeedsACommandRuns) {
  Scenario sc;
  sc.seed = 42;
  std::string why;
  EXPECT_EQ(replication_seeds(sc, std::nullopt, std::nullopt).size(), kDefaultReplications);
  EXPECT_EQ(replication_seeds(sc, std::nullopt, std::nullopt).back(),
            42 + kDefaultReplications - 1);
  EXPECT_EQ(replication_seeds(sc, 7, std::nullopt), std::vector<uint64_t>{7});
  EXPECT_EQ(replication_seeds(sc, std::nullopt, parse_seeds_option("3", why)),
            (std::vector<uint64_t>{42, 43, 44}));
  EXPECT_EQ(replication_seeds(sc, std::nullopt, parse_seeds_option("9, 1,5", why)),
            (std::vector<uint64_t>{9, 1, 5}));
  sc.seeds = {5, 6};
  EXPECT_EQ(replication_seeds(sc, std::nullopt, std::nullopt), (std::vector<uint64_t>{5, 6}));
  EXPECT_EQ(replication_seeds(sc, std::nullopt, parse_seeds_option("3", why)),
            (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_FALSE(parse_seeds_option("0", why));
  EXPECT_FALSE(parse_seeds_option("1,1", why));
  EXPECT_EQ(why, "seed 1 is listed twice in '1,1'");
  EXPECT_FALSE(parse_seeds_option("1,-2", why));
  EXPECT_FALSE(parse_seeds_option("lots", why));
  EXPECT_EQ(seeds_text({42, 43, 44}), "3 seeds (42-44)");
  EXPECT_EQ(seeds_text({7}), "one seed (7)");
  EXPECT_EQ(seeds_text({9, 1}), "2 seeds (9, 1)");
}

}  // namespace
}  // namespace slicelab
