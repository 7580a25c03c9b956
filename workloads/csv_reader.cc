#include "workloads/csv_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>

#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string format_bound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

}  // namespace

bool parse_csv_number(std::string_view text, double& out) {
  text = trim(text);
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_csv_integer(std::string_view text, int64_t& out) {
  text = trim(text);
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

CsvReader::CsvReader(std::string path, char separator) : path_(std::move(path)), sep_(separator) {
  text_ = read_text_file(path_, kMaxCsvBytes);
  // Names read from a trace end up in JSON and HTML, which take only UTF-8.
  check_utf8(text_, path_);
  // Spreadsheet exports often start with a UTF-8 byte order mark; it is not part of the name.
  if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
  if (!read_record(header_))
    throw InputError(fmt::format("{}: empty file: expected a header line", path_));
  // One hash lookup per column: a header of 100,000 columns was compared pairwise.
  columns_.reserve(header_.size());
  for (size_t i = 0; i < header_.size(); ++i) {
    header_[i] = std::string(trim(header_[i]));
    if (!columns_.emplace(header_[i], i).second)
      throw InputError(
          fmt::format("{}:{}: duplicate column '{}' in the header", path_, line_, header_[i]));
  }
}

std::string CsvReader::header_text() const {
  return fmt::format("{}", fmt::join(header_, ", "));
}

std::optional<size_t> CsvReader::column(std::string_view name) const {
  const auto it = columns_.find(std::string(name));
  if (it == columns_.end()) return std::nullopt;
  return it->second;
}

size_t CsvReader::require_column(std::string_view name) const {
  if (auto c = column(name)) return *c;
  throw InputError(
      fmt::format("{}:1: missing column '{}' (the header has: {})", path_, name, header_text()));
}

bool CsvReader::read_record(std::vector<std::string>& out) {
  // Skip blank lines (a lone "\r" counts as blank) before the record.
  while (pos_ < text_.size()) {
    if (text_[pos_] == '\n') {
      ++pos_;
      ++next_line_;
    } else if (text_[pos_] == '\r' && (pos_ + 1 == text_.size() || text_[pos_ + 1] == '\n')) {
      ++pos_;
    } else {
      break;
    }
  }
  if (pos_ >= text_.size()) return false;
  line_ = next_line_;
  out.assign(1, std::string());
  bool quoted = false;
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (quoted) {
      if (c == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          out.back() += '"';
          ++pos_;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++next_line_;  // a quoted field may span lines
        out.back() += c;
      }
      continue;
    }
    if (c == '"' && trim(out.back()).empty()) {
      out.back().clear();
      quoted = true;
    } else if (c == sep_) {
      out.emplace_back();
    } else if (c == '\n') {
      ++next_line_;
      break;
    } else if (c == '\r' && (pos_ == text_.size() || text_[pos_] == '\n')) {
      // the \r of a Windows line ending
    } else {
      out.back() += c;
    }
  }
  if (quoted) throw InputError(fmt::format("{}:{}: a quoted field is not closed", path_, line_));
  return true;
}

bool CsvReader::next() {
  if (!read_record(fields_)) return false;
  if (fields_.size() != header_.size())
    fail(fmt::format("expected {} fields as in the header, found {}", header_.size(),
                     fields_.size()));
  return true;
}

void CsvReader::fail(std::string_view what) const {
  throw InputError(fmt::format("{}:{}: {}", path_, line_, what));
}

void CsvReader::fail_field(size_t column, std::string_view expected) const {
  fail(fmt::format("column '{}': expected {}, found '{}'", header_[column], expected,
                   fields_[column]));
}

int64_t CsvReader::integer(size_t column, int64_t min, int64_t max) const {
  int64_t v = 0;
  if (!parse_csv_integer(fields_[column], v) || v < min || v > max)
    fail_field(column, max == std::numeric_limits<int64_t>::max()
                           ? fmt::format("an integer of at least {}", min)
                           : fmt::format("an integer in {}..{}", min, max));
  return v;
}

double CsvReader::number(size_t column, double min, double max) const {
  double v = 0;
  if (!parse_csv_number(fields_[column], v) || v < min || v > max)
    fail_field(column,
               max == std::numeric_limits<double>::max()
                   ? fmt::format("a number of at least {}", format_bound(min))
                   : fmt::format("a number in {}..{}", format_bound(min), format_bound(max)));
  return v;
}

}  // namespace slicelab
