// Non-negative least squares for small problems (a handful of unknowns): min |A x - b| subject
// to x >= 0, exact, by enumerating the sets of free unknowns (Lawson-Hanson's active sets).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace slicelab {

struct NonNegativeFit {
  std::vector<double> x;              // the optimum, every entry >= 0
  double residual_ss = 0;             // |A x - b|^2 at the optimum
  size_t rank = 0;                    // of A (columns scaled to unit length first)
  std::vector<bool> zero_column;      // columns that are zero in every row
  std::vector<double> unconstrained;  // ordinary least squares; empty when rank < columns
};

// A is `rows` x `cols`, column-major (a[j * rows + i] is row i, column j); b has `rows`
// entries. cols must be at most kMaxNonNegativeColumns (2^cols sets are solved). Columns whose
// scaled norm is below 1e-12 count as zero; the rank uses a relative threshold of 1e-10 on
// the scaled columns. When several sets reach the same residual the one met first in
// enumeration order (fewer free unknowns first, then lower column numbers) wins.
inline constexpr size_t kMaxNonNegativeColumns = 8;
NonNegativeFit nonnegative_least_squares(std::span<const double> a, size_t rows, size_t cols,
                                         std::span<const double> b);

}  // namespace slicelab
