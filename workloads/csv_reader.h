// A small CSV reader shared by the trace importers: quoted fields, header lookup by name, and
// located errors ("file:line: column 'x': expected ..., found '...'") for every bad field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slicelab {

class CsvReader {
 public:
  // Reads the whole file and its header line. Throws InputError when the file cannot be read,
  // is empty or its header repeats a column name.
  explicit CsvReader(std::string path, char separator = ',');

  const std::string& path() const { return path_; }
  const std::vector<std::string>& header() const { return header_; }
  std::string header_text() const;  // "a, b, c" for error messages

  std::optional<size_t> column(std::string_view name) const;
  // The column's index, or an InputError naming the file, the column and the header.
  size_t require_column(std::string_view name) const;

  // Advances to the next record; false at the end of the file. Blank lines are skipped, so a
  // trailing newline (or several) is not a record. A record whose field count differs from the
  // header's is an error, since every later column would be shifted.
  bool next();
  size_t line() const { return line_; }  // 1-based line where the current record starts
  const std::string& field(size_t column) const { return fields_[column]; }

  [[noreturn]] void fail(std::string_view what) const;  // "file:line: what"
  [[noreturn]] void fail_field(size_t column, std::string_view expected) const;

  // Typed fields; a bad value fails with the column's name, what was expected and the text.
  int64_t integer(size_t column, int64_t min, int64_t max) const;
  double number(size_t column, double min, double max) const;

 private:
  std::string path_;
  char sep_;
  std::string text_;
  size_t pos_ = 0;
  size_t next_line_ = 1;
  size_t line_ = 0;
  std::vector<std::string> header_;
  std::unordered_map<std::string, size_t> columns_;  // header name -> index, for linear lookups
  std::vector<std::string> fields_;

  bool read_record(std::vector<std::string>& out);
};

// Number parsing shared with the importers' own unit handling: whole text, finite values only.
bool parse_csv_number(std::string_view text, double& out);
bool parse_csv_integer(std::string_view text, int64_t& out);

}  // namespace slicelab
