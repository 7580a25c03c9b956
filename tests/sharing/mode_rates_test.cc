// Every sharing mode's rates and isolation errors come from the one solver: each mode's terms
// against hand-computed cases, one GPU at a time and for a pod spanning two GPUs.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/modes/gpu_share/gpu_share.h"
#include "sim/modes/interposer/interposer_share.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/modes/mig/mig_sharing.h"
#include "sim/modes/mps/mps.h"
#include "sim/modes/time_slice/time_slice.h"
#include "sim/modes/whole_card/whole_card.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "tests/sharing/sharing_helpers.h"

namespace slicelab {
namespace {

using testing::load;

struct Solved {
  std::vector<double> rate, err;
};

Solved solve_one(const SharingMode& mode, const std::vector<TenantLoad>& loads) {
  Solved s{std::vector<double>(loads.size()), std::vector<double>(loads.size())};
  solve_gpu_rates(mode, loads, s.rate, s.err);
  return s;
}

TEST(ModeRates, WholeCardRunsItsTenantAtSoloSpeedAndPromisesNothing) {
  const auto s = solve_one(WholeCard(), {load(0.6, 1.0)});
  EXPECT_DOUBLE_EQ(s.rate[0], 1.0);
  EXPECT_DOUBLE_EQ(s.err[0], -1.0);
}

TEST(ModeRates, TimeSliceWaterFillsWhatTheSwitchOverheadLeaves) {
  // Demands 0.2 + 0.9 + 0.9 = 2.0 > 1, so 0.9 of the GPU is shared: 0.2 <= 0.9 / 3 is met,
  // the others get (0.9 - 0.2) / 2 = 0.35 each, i.e. rate 0.35 / 0.9.
  const auto s = solve_one(TimeSlice(4, 0.1), {load(0.2, 1), load(0.9, 1), load(0.9, 1)});
  EXPECT_DOUBLE_EQ(s.rate[0], 1.0);
  EXPECT_NEAR(s.rate[1], 0.35 / 0.9, 1e-15);
  EXPECT_NEAR(s.rate[2], 0.35 / 0.9, 1e-15);
  for (const double e : s.err) {
    EXPECT_DOUBLE_EQ(e, -1.0);
  }
}

TEST(ModeRates, TimeSliceWithinTheGpuLosesNoSwitchTime) {
  const auto s = solve_one(TimeSlice(4, 0.1), {load(0.5, 1), load(0.5, 1)});
  EXPECT_DOUBLE_EQ(s.rate[0], 1.0);
  EXPECT_DOUBLE_EQ(s.rate[1], 1.0);
}

TEST(ModeRates, GpuShareModelsNoContention) {
  const auto s = solve_one(GpuShare(), {load(0.7, 0.5), load(0.8, 0.5)});
  EXPECT_DOUBLE_EQ(s.rate[0], 1.0);
  EXPECT_DOUBLE_EQ(s.rate[1], 1.0);
  EXPECT_DOUBLE_EQ(s.err[0], -1.0);
}

TEST(ModeRates, MpsBoundsByThreadShareAndMeasuresTheBrokenPromise) {
  // Bounds min(sm, t) = 0.3, 0.5, 0.4 sum to 1.2 > 1: 0.3 <= 1/3 is met; 0.4 > 0.7/2, so the
  // other two get 0.35. Rates 0.3/0.8, 0.35/0.5, 0.35/0.4; errors |promise - sm x rate|
  // = |0.3 - 0.3|, |0.5 - 0.35|, |0.4 - 0.35|.
  const Mps mps(Mps::Config{});
  const auto s = solve_one(mps, {load(0.8, 0.3), load(0.5, 0.6), load(0.4, 0.5)});
  EXPECT_NEAR(s.rate[0], 0.375, 1e-15);
  EXPECT_NEAR(s.rate[1], 0.7, 1e-15);
  EXPECT_NEAR(s.rate[2], 0.875, 1e-15);
  EXPECT_NEAR(s.err[0], 0.0, 1e-15);
  EXPECT_NEAR(s.err[1], 0.15, 1e-15);
  EXPECT_NEAR(s.err[2], 0.05, 1e-15);
}

TEST(ModeRates, MpsInterferenceDividesTheRate) {
  // Two tenants within their caps (0.4 + 0.4 <= 1): rate 1 / f, f = 1 + a bw_i bw_j + b l_j
  // = 1 + 0.5 * 0.5 * 0.5 + 0.01 * 2 = 1.145; error |0.4 - 0.4 / 1.145|.
  Mps::Config c;
  c.interference = {0.5, 0.01};
  const auto s = solve_one(Mps(c), {load(0.4, 0.5, 0.5, 2), load(0.4, 0.5, 0.5, 2)});
  EXPECT_NEAR(s.rate[0], 1 / 1.145, 1e-15);
  EXPECT_NEAR(s.err[0], 0.4 - 0.4 / 1.145, 1e-15);
}

TEST(ModeRates, MigBoundsEachTenantByItsInstance) {
  // 3g of 7 slices for a pod that would use 0.6 of a whole GPU: rate (3/7) / 0.6; a 1g
  // instance for a 0.1 pod: it fits (rate 1). Neighbours do not matter; nothing promised.
  const MigSharing mig(std::make_shared<MigSettings>());
  TenantLoad a = load(0.6, 1), b = load(0.1, 1);
  a.sm_cap = 3.0 / 7, b.sm_cap = 1.0 / 7;
  const auto s = solve_one(mig, {a, b});
  EXPECT_NEAR(s.rate[0], (3.0 / 7) / 0.6, 1e-15);
  EXPECT_DOUBLE_EQ(s.rate[1], 1.0);
  EXPECT_DOUBLE_EQ(s.err[0], -1.0);
}

TEST(ModeRates, InterposerRateIsTheLimitersShareOverDemandAndLaunchCost) {
  // The bound comes from running the shipped limiter; the rest is the solver's formula:
  // rate = min(1, a / sm) / (1 + 45 ns x launches per ns), error |min(cap, sm) - sm x rate|.
  InterposerShare::Config c;
  c.launch_overhead_ns = 45.0;
  const InterposerShare m(c);
  const std::vector<TenantLoad> loads = {load(1.0, 0.3, 0, 10), load(1.0, 0.7, 0, 10)};
  std::vector<double> achieved(2);
  m.achieved_shares(loads, achieved);
  const auto s = solve_one(m, loads);
  const double cost = 1.0 + 45.0 * 1e-6 * 10;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(s.rate[i], std::min(1.0, achieved[i] / 1.0) / cost);
    EXPECT_DOUBLE_EQ(s.err[i], std::abs(loads[i].cap - s.rate[i]));
  }
  // The limiter holds each near its cap.
  EXPECT_NEAR(achieved[0], 0.3, 0.05);
  EXPECT_NEAR(achieved[1], 0.7, 0.05);
}

// Two GPUs of one node under time-slice (no overhead while within the GPU). GPU0: pod A
// (spanning both GPUs) and pods B, C, each wanting the whole GPU; GPU1: A and D. A gets 1/3 on
// GPU0, so it uses only 1/3 on GPU1 too and D takes the other 2/3 (per GPU, D would get 1/2
// and A's unused 1/6 would be lost).
TEST(ModeRates, MultiGpuPodSlowedOnOneGpuFreesItsShareOnTheOther) {
  const TimeSlice ts(4, 0.0);
  GpuRateSolver solver(2);
  const std::vector<TenantLoad> gpu0 = {load(1, 1), load(1, 1), load(1, 1)};
  const std::vector<TenantLoad> gpu1 = {load(1, 1), load(1, 1)};
  const std::vector<uint32_t> vars0 = {0, 1, 2}, vars1 = {0, 3};
  solver.add_gpu(ts, gpu0, vars0);
  solver.add_gpu(ts, gpu1, vars1);
  std::vector<double> rate(4), err(4);
  solver.solve(rate, err);
  EXPECT_NEAR(rate[0], 1.0 / 3, 1e-15);
  EXPECT_NEAR(rate[1], 1.0 / 3, 1e-15);
  EXPECT_NEAR(rate[2], 1.0 / 3, 1e-15);
  EXPECT_NEAR(rate[3], 2.0 / 3, 1e-15);
}

// The same under MPS, where bounds and promises matter: A (sm 0.9, threads 0.5) spans GPU0 and
// GPU1. GPU0 also holds B (sm 0.9, threads 0.8): bounds 0.5 and 0.8 sum to 1.3, so A gets
// 0.5 (its bound, <= 1/2) and B 0.5. GPU1 holds A and C (sm 1.0, threads 1.0): A takes its
// 0.5, C the other 0.5. A's rate 0.5 / 0.9 and error |0.5 - 0.5| = 0; B's error |0.8 - 0.5|.
// Then A is held to 0.3 threads on GPU1 (a per-GPU bound): it runs at 0.3 everywhere, so B
// gets 0.7 and C 0.7.
TEST(ModeRates, MultiGpuPodUnderMpsTakesItsTightestBound) {
  const Mps mps(Mps::Config{});
  std::vector<double> rate(3), err(3);
  {
    GpuRateSolver solver(2);
    const std::vector<TenantLoad> g0 = {load(0.9, 0.5), load(0.9, 0.8)};
    const std::vector<TenantLoad> g1 = {load(0.9, 0.5), load(1.0, 1.0)};
    solver.add_gpu(mps, g0, std::vector<uint32_t>{0, 1});
    solver.add_gpu(mps, g1, std::vector<uint32_t>{0, 2});
    solver.solve(rate, err);
    EXPECT_NEAR(rate[0], 0.5 / 0.9, 1e-15);
    EXPECT_NEAR(rate[1], 0.5 / 0.9, 1e-15);
    EXPECT_NEAR(rate[2], 0.5, 1e-15);
    EXPECT_NEAR(err[0], 0.0, 1e-15);
    EXPECT_NEAR(err[1], 0.3, 1e-15);
  }
  {
    GpuRateSolver solver(2);
    const std::vector<TenantLoad> g0 = {load(0.9, 0.5), load(0.9, 0.8)};
    const std::vector<TenantLoad> g1 = {load(0.9, 0.3), load(1.0, 1.0)};
    solver.add_gpu(mps, g0, std::vector<uint32_t>{0, 1});
    solver.add_gpu(mps, g1, std::vector<uint32_t>{0, 2});
    solver.solve(rate, err);
    EXPECT_NEAR(rate[0], 0.3 / 0.9, 1e-15);
    EXPECT_NEAR(rate[1], 0.7 / 0.9, 1e-15);
    EXPECT_NEAR(rate[2], 0.7, 1e-15);
    // A's largest broken promise is on GPU0 (0.5 promised, 0.3 delivered).
    EXPECT_NEAR(err[0], 0.2, 1e-15);
    EXPECT_NEAR(err[1], 0.1, 1e-15);
  }
}

}  // namespace
}  // namespace slicelab
