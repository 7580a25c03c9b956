// Pins down the one GPU rate solver: on one GPU, water-filling (demands under capacity are met
// in full, beyond it the smallest first and the rest equally); across GPUs, one variable per pod.
#include "sim/sharing/gpu_rate_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "workloads/rng.h"

namespace slicelab {
namespace {

// Shares of GPU time each demand gets on one GPU of `capacity` (share = rate x demand).
std::vector<double> solve(const std::vector<double>& demand, double capacity) {
  std::vector<TenantLoad> loads(demand.size());
  std::vector<TenantTerms> terms(demand.size());
  std::vector<uint32_t> vars(demand.size());
  for (size_t i = 0; i < demand.size(); ++i) {
    loads[i].sm_demand = demand[i];
    vars[i] = static_cast<uint32_t>(i);
  }
  GpuRateSolver solver(1);
  solver.add_gpu(GpuTerms{.capacity = capacity}, loads, terms, vars);
  std::vector<double> rate(demand.size()), err(demand.size());
  solver.solve(rate, err);
  std::vector<double> alloc(demand.size());
  for (size_t i = 0; i < demand.size(); ++i) alloc[i] = rate[i] * demand[i];
  return alloc;
}

TEST(GpuRateSolverOneGpu, DemandsWithinCapacityAreMetInFull) {
  const auto a = solve({0.2, 0.3}, 1.0);
  EXPECT_DOUBLE_EQ(a[0], 0.2);
  EXPECT_DOUBLE_EQ(a[1], 0.3);
}

TEST(GpuRateSolverOneGpu, DemandsSummingExactlyToCapacityAreMetInFull) {
  const auto a = solve({0.25, 0.75}, 1.0);
  EXPECT_DOUBLE_EQ(a[0], 0.25);
  EXPECT_DOUBLE_EQ(a[1], 0.75);
}

TEST(GpuRateSolverOneGpu, SmallDemandMetAndLargeGetsTheRest) {
  // Sorted 0.2, 0.9. Equal share of 1.0 is 0.5 >= 0.2, so 0.2 is met; 0.8 is left for 0.9.
  const auto a = solve({0.2, 0.9}, 1.0);
  EXPECT_DOUBLE_EQ(a[0], 0.2);
  EXPECT_DOUBLE_EQ(a[1], 0.8);
}

TEST(GpuRateSolverOneGpu, ResultFollowsInputIndicesNotSortedOrder) {
  // Same as above, listed large-first.
  const auto a = solve({0.9, 0.2}, 1.0);
  EXPECT_DOUBLE_EQ(a[0], 0.8);
  EXPECT_DOUBLE_EQ(a[1], 0.2);
}

TEST(GpuRateSolverOneGpu, EqualDemandsShareEqually) {
  // Three whole-GPU demands on 0.9: 0.3 each.
  const auto a = solve({1.0, 1.0, 1.0}, 0.9);
  for (const double v : a) EXPECT_NEAR(v, 0.3, 1e-15);
}

TEST(GpuRateSolverOneGpu, SeveralLevelsOfWaterFilling) {
  // Sorted 0.1, 0.2, 0.9, 0.9 on 1.0:
  //   0.1 <= 1.0/4 = 0.25 -> 0.1, left 0.9
  //   0.2 <= 0.9/3 = 0.3  -> 0.2, left 0.7
  //   0.9 >  0.7/2 = 0.35 -> both remaining get 0.35
  const auto a = solve({0.9, 0.1, 0.9, 0.2}, 1.0);
  EXPECT_NEAR(a[0], 0.35, 1e-15);
  EXPECT_DOUBLE_EQ(a[1], 0.1);
  EXPECT_NEAR(a[2], 0.35, 1e-15);
  EXPECT_DOUBLE_EQ(a[3], 0.2);
}

TEST(GpuRateSolverOneGpu, StopsAtTheFirstDemandAboveTheShare) {
  // Sorted 0.1, 0.5, 0.6, 0.7 on 1.2 (total 1.9):
  //   0.1 <= 1.2/4 = 0.3 -> 0.1, left 1.1
  //   0.5 >  1.1/3       -> 0.5, 0.6 and 0.7 all get 1.1/3 = 0.3666...
  const auto a = solve({0.7, 0.5, 0.1, 0.6}, 1.2);
  EXPECT_NEAR(a[0], 1.1 / 3, 1e-15);
  EXPECT_NEAR(a[1], 1.1 / 3, 1e-15);
  EXPECT_DOUBLE_EQ(a[2], 0.1);
  EXPECT_NEAR(a[3], 1.1 / 3, 1e-15);
  EXPECT_NEAR(a[0] + a[1] + a[2] + a[3], 1.2, 1e-15);
}

TEST(GpuRateSolverOneGpu, ZeroDemandGetsNothingAndFreesItsShare) {
  const auto a = solve({0.0, 2.0}, 1.0);
  EXPECT_DOUBLE_EQ(a[0], 0.0);
  EXPECT_DOUBLE_EQ(a[1], 1.0);
}

TEST(GpuRateSolverOneGpu, ZeroCapacityGivesNothing) {
  const auto a = solve({1.0, 0.5}, 0.0);
  EXPECT_DOUBLE_EQ(a[0], 0.0);
  EXPECT_DOUBLE_EQ(a[1], 0.0);
}

TEST(GpuRateSolverOneGpu, EmptyInputIsANoOp) {
  EXPECT_TRUE(solve({}, 1.0).empty());
}

TEST(GpuRateSolverOneGpu, NeverExceedsDemandOrCapacityOnManyTenants) {
  // 64 tenants (the most a GPU may hold) with demands 1/64, 2/64, ..., 64/64 on capacity 8.
  // Total 32.5 > 8. Water level L solves sum(min(d_i, L)) = 8: with d_i = i/64 and L = k/64
  // for the first k met in full, k(k+1)/2/64 + (64-k)L = 8. Check the invariants rather than L.
  std::vector<double> demand;
  for (int i = 1; i <= 64; ++i) demand.push_back(i / 64.0);
  const auto a = solve(demand, 8.0);
  double sum = 0, level = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_LE(a[i], demand[i] + 1e-15);
    EXPECT_GE(a[i], 0.0);
    sum += a[i];
    level = std::max(level, a[i]);
  }
  EXPECT_NEAR(sum, 8.0, 1e-12);
  // Every tenant not met in full sits at the common level.
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] < demand[i]) {
      EXPECT_NEAR(a[i], level, 1e-12);
    }
  }
  // Smallest demand (1/64) is far under the level and met in full.
  EXPECT_DOUBLE_EQ(a[0], 1.0 / 64);
}

}  // namespace
}  // namespace slicelab

namespace slicelab {
namespace {

// The one-GPU path (water-filling) and the general one (progressive filling, taken when the
// problem has more than one GPU: here an empty second GPU) agree on random problems.
TEST(GpuRateSolverAgreement, OneGpuWaterFillingMatchesProgressiveFilling) {
  Rng rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const size_t n = 1 + static_cast<size_t>(rng.uniform() * 20);
    std::vector<TenantLoad> loads(n);
    std::vector<TenantTerms> terms(n);
    std::vector<uint32_t> vars(n);
    for (size_t i = 0; i < n; ++i) {
      loads[i].sm_demand = rng.uniform();
      terms[i].bound = rng.uniform() < 0.5 ? GpuTerms::kUnlimited : rng.uniform();
      vars[i] = static_cast<uint32_t>(i);
    }
    const GpuTerms gpu{.capacity = rng.uniform() * 2};
    std::vector<double> one(n), general(n), err(n);
    GpuRateSolver a(1);
    a.add_gpu(gpu, loads, terms, vars);
    a.solve(one, err);
    GpuRateSolver b(2);
    b.add_gpu(gpu, loads, terms, vars);
    b.add_gpu(GpuTerms{}, {}, {}, {});
    b.solve(general, err);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(one[i], general[i], 1e-9) << "trial " << trial << " tenant " << i;
    }
  }
}

TEST(GpuRateSolverAgreement, AVariableOnSeveralGpusIsCountedOnEach) {
  // One pod on three GPUs of capacity 0.5, 1 and 1, alone: it takes 0.5 everywhere.
  GpuRateSolver s(3);
  const std::vector<TenantLoad> one = {TenantLoad{}};
  const std::vector<TenantTerms> t(1);
  const std::vector<uint32_t> v = {0};
  s.add_gpu(GpuTerms{.capacity = 0.5}, one, t, v);
  s.add_gpu(GpuTerms{}, one, t, v);
  s.add_gpu(GpuTerms{}, one, t, v);
  std::vector<double> rate(1), err(1);
  s.solve(rate, err);
  EXPECT_DOUBLE_EQ(rate[0], 0.5);
  EXPECT_DOUBLE_EQ(err[0], -1.0);
}

}  // namespace
}  // namespace slicelab
