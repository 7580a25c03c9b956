// Pins down interposer sharing: the shipped limiter on simulated time holds 10/30/50/90% caps
// within 5 points (the interposer's own tests' bound), alone and beside others; rates follow
// the achieved shares; hard memory caps fail the offender only; time-slice interference.
#include "sim/modes/interposer/interposer_share.h"
#include "sim/sharing/gpu_rate_solver.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/modes/interposer/simulated_limiter.h"
#include "sim/modes/time_slice/time_slice.h"
#include "tests/sharing/sharing_helpers.h"

namespace slicelab {
namespace {

using testing::classed;
using testing::cluster_of;
using testing::load;
using testing::node_group;
using testing::pod;
using testing::run_with_classes;

LimiterSimConfig long_window() {
  LimiterSimConfig c;
  c.window_ns = 5'000'000'000;
  c.warmup_ns = 1'000'000'000;
  return c;
}

TEST(SimLimiter, HoldsEachCapWithinFivePointsAlone) {
  for (const double cap : {0.10, 0.30, 0.50, 0.90}) {
    for (const int64_t kernel : {int64_t{20'000}, int64_t{1'000'000}, int64_t{10'000'000}}) {
      const LimitedTenant t{cap, 1.0, kernel};
      double achieved = 0;
      simulate_limiter(std::span(&t, 1), long_window(), std::span(&achieved, 1));
      RecordProperty("cap_" + std::to_string(cap) + "_kernel_" + std::to_string(kernel),
                     std::to_string(achieved));
      EXPECT_NEAR(achieved, cap, 0.05) << "cap " << cap << " kernel " << kernel;
    }
  }
}

TEST(SimLimiter, HoldsCapsWithinFivePointsBesideOtherTenants) {
  for (auto [a, b] : {std::pair{0.1, 0.9}, std::pair{0.3, 0.6}, std::pair{0.5, 0.5}}) {
    const std::vector<LimitedTenant> ts = {{a, 1.0, 200'000}, {b, 1.0, 1'000'000}};
    std::vector<double> got(2);
    simulate_limiter(ts, long_window(), got);
    RecordProperty("shares_" + std::to_string(a) + "_" + std::to_string(b),
                   std::to_string(got[0]) + " " + std::to_string(got[1]));
    EXPECT_NEAR(got[0], a, 0.05) << a << " vs " << b;
    EXPECT_NEAR(got[1], b, 0.05) << a << " vs " << b;
  }
  // Four tenants of 10, 30, 50 and 10%.
  const std::vector<LimitedTenant> four = {
      {0.1, 1.0, 500'000}, {0.3, 1.0, 500'000}, {0.5, 1.0, 2'000'000}, {0.1, 1.0, 50'000}};
  std::vector<double> got(4);
  simulate_limiter(four, long_window(), got);
  RecordProperty("shares_four", std::to_string(got[0]) + " " + std::to_string(got[1]) + " " +
                                    std::to_string(got[2]) + " " + std::to_string(got[3]));
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(got[i], four[i].cap, 0.05) << i;
}

TEST(SimLimiter, TenantBelowItsCapGetsItsOwnDemand) {
  const LimitedTenant t{0.5, 0.2, 1'000'000};
  double achieved = 0;
  simulate_limiter(std::span(&t, 1), long_window(), std::span(&achieved, 1));
  EXPECT_NEAR(achieved, 0.2, 0.01);
}

InterposerShare interposer(double overhead_ns = 0, InterferenceCoefficients k = {}) {
  return InterposerShare({overhead_ns, 1.0, k});
}

TEST(SimInterposerRates, RatesAreAchievedSharesOverDemandAndErrorIsTheirDistanceToTheCap) {
  const InterposerShare m = interposer();
  const std::vector<TenantLoad> loads = {load(1.0, 0.3), load(1.0, 0.5)};
  std::vector<double> rate(2), err(2), achieved(2);
  solve_gpu_rates(m, loads, rate, err);
  m.achieved_shares(loads, achieved);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(rate[i], achieved[i]);  // sm demand 1: rate = achieved share
    EXPECT_NEAR(err[i], std::abs(loads[i].cap - achieved[i]), 1e-15);
    EXPECT_LE(err[i], 0.05);
  }
  // The same tenant set in another order hits the cache and maps back per tenant.
  std::vector<double> swapped(2);
  m.achieved_shares(std::vector<TenantLoad>{loads[1], loads[0]}, swapped);
  EXPECT_EQ(m.cached_sets(), 1U);
  EXPECT_DOUBLE_EQ(swapped[0], achieved[1]);
  EXPECT_DOUBLE_EQ(swapped[1], achieved[0]);
}

TEST(SimInterposerRates, LaunchOverheadAndInterferenceDivideTheRate) {
  // 1000 ns per launch at 10 launches per ms: 1 + 1000e-6 * 10 = 1.01. a = 0.2 with bandwidth
  // 0.5 and 0.5: f = 1.05.
  const std::vector<TenantLoad> loads = {load(0.2, 0.5, 0.5, 10), load(0.2, 0.5, 0.5, 10)};
  std::vector<double> plain(2), slowed(2), err(2), achieved(2);
  solve_gpu_rates(interposer(), loads, plain, err);
  const InterposerShare m = interposer(1000, {0.2, 0.0});
  solve_gpu_rates(m, loads, slowed, err);
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(slowed[i], plain[i] / 1.01 / 1.05, 1e-12);
}

TEST(SimInterposerEngine, PodOverItsMemoryCapFailsAloneNeighboursUnaffected) {
  // Class "big" peaks at 50000 MiB; b asks only 30000: the hard cap fails b at t=10, and a
  // (500 milli, peak = its request) runs on, unaffected: the same finish as without b.
  const WorkloadClasses classes({{"big", 0.5, 0.0, 0.0, 50000}});
  SharingConfig c;
  c.kind = "interposer";
  const auto with_b =
      run_with_classes(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                       {pod("a", 0, 100).milli(500).gpu_mem(10000),
                        classed(pod("b", 10, 100).milli(500).gpu_mem(30000), "big")},
                       c, classes);
  const auto alone = run_with_classes(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                                      {pod("a", 0, 100).milli(500).gpu_mem(10000)}, c, classes);
  EXPECT_EQ(with_b.pods[1].status, PodStatus::kFailed);
  EXPECT_EQ(with_b.reason_of(1),
            "out of memory on n-0 GPU 0: peak 50000 MiB over its interposer limit of 30000 MiB");
  EXPECT_EQ(with_b.pods[0].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(with_b.pods[0].finish_s, alone.pods[0].finish_s);
  EXPECT_EQ(with_b.summary.neighbour_failures, 0U);
  // a is capped at 50% with an SM demand of 0.5: the limiter hardly binds, small error.
  EXPECT_GE(with_b.pods[0].isolation_error, 0.0);
  EXPECT_LE(with_b.pods[0].isolation_error, 0.05);
}

TEST(SimTimeSliceInterference, ZeroCoefficientsKeepTheRatesAndOthersDivideByF) {
  const std::vector<TenantLoad> loads = {load(1.0, 1.0, 0.5, 4), load(1.0, 1.0, 0.5, 4)};
  std::vector<double> plain(2), slowed(2), err(2);
  solve_gpu_rates(TimeSlice(2, 0.1), loads, plain, err);
  EXPECT_NEAR(plain[0], 0.45, 1e-15);
  // a = 0.2, b = 0.01: f = 1 + 0.2 * 0.25 + 0.01 * 4 = 1.09.
  solve_gpu_rates(TimeSlice(2, 0.1, {0.2, 0.01}), loads, slowed, err);
  EXPECT_NEAR(slowed[0], 0.45 / 1.09, 1e-15);
  EXPECT_NEAR(slowed[1], 0.45 / 1.09, 1e-15);
}

}  // namespace
}  // namespace slicelab
