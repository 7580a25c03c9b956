#include "reports/aligned_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab {

std::string aligned_table(const std::vector<std::vector<std::string>>& rows, size_t text_columns) {
  if (rows.empty()) return "";
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  std::string out;
  const auto line = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      out += i < text_columns ? fmt::format("{:<{}}", row[i], width[i])
                              : fmt::format("{:>{}}", row[i], width[i]);
      out += i + 1 < row.size() ? "  " : "\n";
    }
  };
  line(rows.front());
  std::vector<std::string> rule;
  rule.reserve(width.size());
  for (const size_t w : width) rule.emplace_back(w, '-');
  line(rule);
  for (size_t i = 1; i < rows.size(); ++i) line(rows[i]);
  return out;
}

}  // namespace slicelab
