// Pins down the non-negative least squares of the calibration fit against hand-solved cases:
// an interior optimum equals ordinary least squares; a negative unconstrained coefficient is
// held at 0 and the other refitted alone; dependent and zero columns are reported by rank.
#include "sim/interference/nonnegative_least_squares.h"

#include <gtest/gtest.h>

#include <vector>

namespace slicelab {
namespace {

// Columns [1,0,1] and [0,1,1] (column-major): A^T A = [[2,1],[1,2]], its inverse
// [[2,-1],[-1,2]] / 3.
const std::vector<double> kTwoColumns = {1, 0, 1, 0, 1, 1};

TEST(NonNegativeLeastSquares, InteriorOptimumIsOrdinaryLeastSquares) {
  // A^T b = [4, 5] -> x = [2*4-5, -4+2*5] / 3 = [1, 2], an exact fit.
  const NonNegativeFit f = nonnegative_least_squares(kTwoColumns, 3, 2, std::vector{1.0, 2.0, 3.0});
  EXPECT_NEAR(f.x[0], 1.0, 1e-12);
  EXPECT_NEAR(f.x[1], 2.0, 1e-12);
  EXPECT_NEAR(f.residual_ss, 0.0, 1e-20);
  EXPECT_EQ(f.rank, 2U);
  ASSERT_EQ(f.unconstrained.size(), 2U);
  EXPECT_NEAR(f.unconstrained[0], 1.0, 1e-12);
}

TEST(NonNegativeLeastSquares, NegativeOptimumIsHeldAtZeroAndTheOtherRefitted) {
  // b = [-1, 2, 1]: A^T b = [0, 3] -> unconstrained x = [-3, 6] / 3 = [-1, 2]. With x0 = 0,
  // column [0,1,1] alone: x1 = (2 + 1) / 2 = 1.5, residuals [-1, 0.5, -0.5], SS = 1.5 (x1 = 0
  // with x0 alone gives x0 = 0 and SS = 6).
  const NonNegativeFit f =
      nonnegative_least_squares(kTwoColumns, 3, 2, std::vector{-1.0, 2.0, 1.0});
  ASSERT_EQ(f.unconstrained.size(), 2U);
  EXPECT_NEAR(f.unconstrained[0], -1.0, 1e-12);
  EXPECT_NEAR(f.unconstrained[1], 2.0, 1e-12);
  EXPECT_EQ(f.x[0], 0.0);
  EXPECT_NEAR(f.x[1], 1.5, 1e-12);
  EXPECT_NEAR(f.residual_ss, 1.5, 1e-12);
}

TEST(NonNegativeLeastSquares, BothNegativeGivesZeros) {
  // A^T b = [-2, -2] -> unconstrained [-2/3, -2/3]; each column alone wants -1: x = 0, SS = 3.
  const NonNegativeFit f =
      nonnegative_least_squares(kTwoColumns, 3, 2, std::vector{-1.0, -1.0, -1.0});
  EXPECT_EQ(f.x[0], 0.0);
  EXPECT_EQ(f.x[1], 0.0);
  EXPECT_NEAR(f.residual_ss, 3.0, 1e-12);
  EXPECT_NEAR(f.unconstrained[0], -2.0 / 3.0, 1e-12);
}

TEST(NonNegativeLeastSquares, DependentColumnsHaveRankOneAndNoUnconstrainedFit) {
  // [1,2,3] and [2,4,6]: either column alone fits b = [1,2,3] exactly; the first one wins.
  const NonNegativeFit f = nonnegative_least_squares(std::vector<double>{1, 2, 3, 2, 4, 6}, 3, 2,
                                                     std::vector{1.0, 2.0, 3.0});
  EXPECT_EQ(f.rank, 1U);
  EXPECT_TRUE(f.unconstrained.empty());
  EXPECT_FALSE(f.zero_column[0]);
  EXPECT_FALSE(f.zero_column[1]);
  EXPECT_NEAR(f.x[0], 1.0, 1e-12);
  EXPECT_EQ(f.x[1], 0.0);
  EXPECT_NEAR(f.residual_ss, 0.0, 1e-20);
}

TEST(NonNegativeLeastSquares, ZeroColumnStaysZeroAndTheRankCountsTheRest) {
  // [1,1,1] alone: x0 = mean(b) = 2, residuals [-1, 0, 1], SS = 2.
  const NonNegativeFit f = nonnegative_least_squares(std::vector<double>{1, 1, 1, 0, 0, 0}, 3, 2,
                                                     std::vector{1.0, 2.0, 3.0});
  EXPECT_EQ(f.rank, 1U);
  EXPECT_TRUE(f.zero_column[1]);
  EXPECT_NEAR(f.x[0], 2.0, 1e-12);
  EXPECT_EQ(f.x[1], 0.0);
  EXPECT_NEAR(f.residual_ss, 2.0, 1e-12);
  // Every column zero: rank 0, x = 0, SS = |b|^2.
  const NonNegativeFit none =
      nonnegative_least_squares(std::vector<double>(6, 0.0), 3, 2, std::vector{1.0, 2.0, 3.0});
  EXPECT_EQ(none.rank, 0U);
  EXPECT_EQ(none.x[0], 0.0);
  EXPECT_NEAR(none.residual_ss, 14.0, 1e-12);
}

TEST(NonNegativeLeastSquares, RankDoesNotDependOnTheColumnsUnits) {
  // The second column in units a million times smaller is still independent: x1 scales up.
  const NonNegativeFit f = nonnegative_least_squares(std::vector<double>{1, 0, 1, 0, 1e-6, 1e-6}, 3,
                                                     2, std::vector{1.0, 2.0, 3.0});
  EXPECT_EQ(f.rank, 2U);
  EXPECT_NEAR(f.x[0], 1.0, 1e-9);
  EXPECT_NEAR(f.x[1], 2e6, 1e-3);
}

}  // namespace
}  // namespace slicelab
