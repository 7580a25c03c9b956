#include "reports/csv_table.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace slicelab {

std::optional<size_t> CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

CsvTable parse_csv(std::string_view text, std::string_view what) {
  CsvTable t;
  std::vector<std::string> record(1);
  bool quoted = false;
  bool any = false;  // the current record has content (a blank line is no record)
  auto finish = [&] {
    if (any) {
      if (t.header.empty()) {
        t.header = std::move(record);
      } else {
        if (record.size() < t.header.size()) record.resize(t.header.size());
        t.rows.push_back(std::move(record));
      }
    }
    record.assign(1, std::string());
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        record.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        record.back() += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        quoted = any = true;
        break;
      case ',':
        record.emplace_back();
        any = true;
        break;
      case '\r':
        break;
      case '\n':
        finish();
        break;
      default:
        record.back() += c;
        any = true;
    }
  }
  if (quoted) throw std::runtime_error(fmt::format("{}: unterminated quoted field", what));
  finish();
  return t;
}

std::optional<double> csv_number(std::string_view field) {
  if (field.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace slicelab
