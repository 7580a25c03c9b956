// The terminal's small tables (per class, per queue): a head row, a rule of dashes and the rows,
// each column as wide as its widest cell.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace slicelab {

// `rows` (the head first, every row as long as it) as text: the first `text_columns` columns
// left-aligned, the rest (figures) right-aligned, two spaces between columns, a newline after
// each row; "" when `rows` is empty.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows, size_t text_columns);

}  // namespace slicelab
