// The Eigen least-squares fit of the capacity curve, value = a + b / gpus.
#include <gtest/gtest.h>

#include "sim/planning/capacity_fit.h"

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

// A queueing delay that falls to zero well before the largest size: the least-squares curve
// dips below zero there, but no run can produce a negative delay, so the drawn samples stop at 0.
TEST(CapacityFit, DrawnCurveOfNonNegativeValuesStaysAtOrAboveZero) {
  const std::vector<CurvePoint> pts = {{24, 390000}, {48, 54000}, {96, 2500}, {144, 0}, {272, 0}};
  const auto fit = fit_capacity_curve(pts);
  ASSERT_TRUE(fit);
  ASSERT_LT(fit->a + fit->b / 272.0, 0.0);  // the fitted model itself goes negative
  for (const CurvePoint& p : fit->samples) EXPECT_GE(p.value, 0.0) << p.gpus;
  EXPECT_DOUBLE_EQ(fit->samples.front().value, fit->a + fit->b / 24.0);
  // With a negative observation the values are not floored.
  const auto signed_fit =
      fit_capacity_curve(std::vector<CurvePoint>{{8, 5.0}, {16, -1.0}, {32, -4.0}});
  ASSERT_TRUE(signed_fit);
  EXPECT_LT(signed_fit->samples.back().value, 0.0);
}

}  // namespace
}  // namespace slicelab
