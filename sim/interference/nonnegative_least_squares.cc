#include "sim/interference/nonnegative_least_squares.h"

#include <Eigen/Dense>
#include <bit>
#include <cassert>
#include <cstdint>

namespace slicelab {

namespace {

constexpr double kZeroColumn = 1e-12;
constexpr double kRankThreshold = 1e-10;

// Least squares over the columns in `set` of the unit-length matrix `u`; false when those
// columns are dependent. `z` gets the solution in u's scale, zero outside `set`.
bool solve_on(const Eigen::MatrixXd& u, const Eigen::VectorXd& b, uint32_t set,
              Eigen::VectorXd& z) {
  const Eigen::Index k = std::popcount(set);
  Eigen::MatrixXd sub(u.rows(), k);
  Eigen::Index c = 0;
  for (Eigen::Index j = 0; j < u.cols(); ++j)
    if (set & (1U << j)) sub.col(c++) = u.col(j);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(sub);
  qr.setThreshold(kRankThreshold);
  if (qr.rank() < k) return false;
  const Eigen::VectorXd s = qr.solve(b);
  z.setZero(u.cols());
  c = 0;
  for (Eigen::Index j = 0; j < u.cols(); ++j)
    if (set & (1U << j)) z(j) = s(c++);
  return true;
}

}  // namespace

NonNegativeFit nonnegative_least_squares(std::span<const double> a, size_t rows, size_t cols,
                                         std::span<const double> b) {
  assert(cols <= kMaxNonNegativeColumns && a.size() == rows * cols && b.size() == rows);
  const auto n = static_cast<Eigen::Index>(rows), m = static_cast<Eigen::Index>(cols);
  const Eigen::Map<const Eigen::MatrixXd> am(a.data(), n, m);
  const Eigen::Map<const Eigen::VectorXd> bm(b.data(), n);
  // Unit-length columns, so that the rank threshold does not depend on the regressors' units.
  Eigen::MatrixXd u = am;
  Eigen::VectorXd norm(m);
  NonNegativeFit fit;
  fit.zero_column.assign(cols, false);
  uint32_t usable = 0;
  for (Eigen::Index j = 0; j < m; ++j) {
    norm(j) = am.col(j).norm();
    if (norm(j) < kZeroColumn) {
      fit.zero_column[static_cast<size_t>(j)] = true;
      u.col(j).setZero();
      continue;
    }
    u.col(j) /= norm(j);
    usable |= 1U << j;
  }
  if (usable != 0) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(u);
    qr.setThreshold(kRankThreshold);
    fit.rank = static_cast<size_t>(qr.rank());
  }
  fit.x.assign(cols, 0.0);
  fit.residual_ss = bm.squaredNorm();
  Eigen::VectorXd z;
  if (fit.rank == cols && cols > 0 && solve_on(u, bm, (1U << m) - 1, z)) {
    fit.unconstrained.resize(cols);
    for (Eigen::Index j = 0; j < m; ++j) fit.unconstrained[static_cast<size_t>(j)] = z(j) / norm(j);
  }
  // Every optimum of the constrained problem is the unconstrained optimum over its free
  // unknowns (those above 0), and by Caratheodory some optimum has independent free columns:
  // so the best feasible solution over all independent sets is the optimum.
  const double tie = 1e-12 * (1.0 + fit.residual_ss);
  for (int size = 1; size <= static_cast<int>(cols); ++size)
    for (uint32_t set = 1; set < (1U << m); ++set) {
      if (std::popcount(set) != size || (set & ~usable) != 0) continue;
      if (!solve_on(u, bm, set, z) || (z.array() < 0.0).any()) continue;
      const double ss = (u * z - bm).squaredNorm();
      if (ss < fit.residual_ss - tie) {
        fit.residual_ss = ss;
        for (Eigen::Index j = 0; j < m; ++j)
          fit.x[static_cast<size_t>(j)] = z(j) == 0.0 ? 0.0 : z(j) / norm(j);
      }
    }
  return fit;
}

}  // namespace slicelab
