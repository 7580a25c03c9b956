// Levenshtein distance, for "did you mean" hints: the scenario reader's unknown keys and the
// interposer's unknown SLICELAB_* names. Header-only, so the interposer links nothing for it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace slicelab {

// O(|a|·|b|) time, O(|b|) memory: callers bound their inputs' lengths.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace slicelab
