// The Eigen least-squares fit of the capacity curve, value = a + b / gpus, kept >= 0.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "planning/capacity_fit.h"

namespace slicelab {
namespace {

TEST(CapacityFit, RecoversKnownCoefficientsExactly) {
  std::vector<CurvePoint> pts;
  for (const double g : {4.0, 8.0, 12.0, 16.0, 32.0, 64.0}) pts.push_back({g, 12.5 + 4000.0 / g});
  const auto fit = fit_capacity_curve(pts);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->a, 12.5, 1e-8);
  EXPECT_NEAR(fit->b, 4000.0, 1e-6);
  EXPECT_NEAR(fit->r2, 1.0, 1e-12);
  ASSERT_EQ(fit->samples.size(), 32U);
  EXPECT_DOUBLE_EQ(fit->samples.front().gpus, 4.0);
  EXPECT_DOUBLE_EQ(fit->samples.back().gpus, 64.0);
  EXPECT_NEAR(fit->samples.back().value, 12.5 + 4000.0 / 64.0, 1e-8);
}

TEST(CapacityFit, NoisyPointsGiveAnR2BelowOneAndCloseCoefficients) {
  std::vector<CurvePoint> pts;
  const double noise[] = {3, -2, 4, -3, 1, -1, 2, -4};
  int i = 0;
  for (const double g : {2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0})
    pts.push_back({g, 100.0 + 800.0 / g + noise[i++]});
  const auto fit = fit_capacity_curve(pts);
  ASSERT_TRUE(fit);
  EXPECT_LT(fit->r2, 1.0);
  EXPECT_GT(fit->r2, 0.95);
  EXPECT_NEAR(fit->a, 100.0, 6.0);
  EXPECT_NEAR(fit->b, 800.0, 30.0);
}

TEST(CapacityFit, NeedsTwoDistinctGpuCounts) {
  EXPECT_FALSE(fit_capacity_curve(std::vector<CurvePoint>{}));
  EXPECT_FALSE(fit_capacity_curve(std::vector<CurvePoint>{{8, 1.0}, {8, 2.0}}));
  EXPECT_TRUE(fit_capacity_curve(std::vector<CurvePoint>{{8, 1.0}, {16, 2.0}}));
}

TEST(CapacityFit, FlatCurveFitsWithR2One) {
  const auto fit = fit_capacity_curve(std::vector<CurvePoint>{{8, 0.0}, {16, 0.0}, {24, 0.0}});
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->a, 0.0, 1e-12);
  EXPECT_NEAR(fit->b, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(fit->r2, 1.0);
}

// The unconstrained least-squares coefficients (a, b), by the normal equations on (1, 1/g).
std::pair<double, double> free_fit(const std::vector<CurvePoint>& pts) {
  double n = 0, su = 0, suu = 0, sy = 0, suy = 0;
  for (const CurvePoint& p : pts) {
    const double u = 1 / p.gpus;
    n += 1, su += u, suu += u * u, sy += p.value, suy += u * p.value;
  }
  const double b = (n * suy - su * sy) / (n * suu - su * su);
  return {(sy - b * su) / n, b};
}

// A queueing delay that falls to zero well before the largest size: the free least-squares
// curve dips below zero there (a + b / 272 < 0 for the unconstrained coefficients, computed by
// hand below), but no run can produce a negative delay: the fit is constrained to stay >= 0,
// falls monotonically and stays within the observed values.
TEST(CapacityFit, FitOfNonNegativeValuesIsNonNegativeMonotoneAndWithinTheData) {
  const std::vector<CurvePoint> pts = {{24, 390000}, {48, 54000}, {96, 2500}, {144, 0}, {272, 0}};
  const auto [free_a, free_b] = free_fit(pts);
  ASSERT_LT(free_a + free_b / 272.0, 0.0);  // the old fit went negative
  const auto fit = fit_capacity_curve(pts);
  ASSERT_TRUE(fit);
  EXPECT_GE(fit->a + fit->b / 272.0, -1e-6);
  EXPECT_GE(fit->a + fit->b / 24.0, 0.0);
  EXPECT_GT(fit->b, 0.0);
  ASSERT_EQ(fit->samples.size(), 32U);
  for (size_t i = 0; i < fit->samples.size(); ++i) {
    const CurvePoint& p = fit->samples[i];
    EXPECT_GE(p.value, 0.0) << p.gpus;
    EXPECT_LE(p.value, 390000.0) << p.gpus;
    EXPECT_GE(p.gpus, 24.0);
    EXPECT_LE(p.gpus, 272.0);
    if (i > 0) {
      EXPECT_LE(p.value, fit->samples[i - 1].value) << p.gpus;
    }
  }
  // The constrained fit is the best curve with a zero at 272 GPUs: b (1/g - 1/272).
  double num = 0, den = 0;
  for (const CurvePoint& p : pts) {
    const double u = 1 / p.gpus - 1 / 272.0;
    num += u * p.value, den += u * u;
  }
  EXPECT_NEAR(fit->b, num / den, 1e-6 * num / den);
  // With a negative observation nothing is constrained.
  const auto signed_fit =
      fit_capacity_curve(std::vector<CurvePoint>{{8, 5.0}, {16, -1.0}, {32, -4.0}});
  ASSERT_TRUE(signed_fit);
  EXPECT_LT(signed_fit->samples.back().value, 0.0);
}

// A rising metric (SLO attainment) whose free fit would dip below zero at the small end.
TEST(CapacityFit, RisingCurveIsConstrainedAtTheSmallEnd) {
  const std::vector<CurvePoint> pts = {{8, 0.0}, {16, 0.0}, {24, 0.0}, {32, 0.95}, {64, 0.99}};
  const auto [free_a, free_b] = free_fit(pts);
  ASSERT_LT(free_a + free_b / 8.0, 0.0);
  const auto fit = fit_capacity_curve(pts);
  ASSERT_TRUE(fit);
  EXPECT_LT(fit->b, 0.0);
  EXPECT_GE(fit->a + fit->b / 8.0, -1e-9);
  for (size_t i = 1; i < fit->samples.size(); ++i) {
    EXPECT_GE(fit->samples[i].value, fit->samples[i - 1].value);
    EXPECT_LE(fit->samples[i].value, 0.99);
  }
}

}  // namespace
}  // namespace slicelab
