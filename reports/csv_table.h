// A small reader for the CSV files slicelab itself writes (pods.csv, timeseries.csv, fill.csv):
// a header row, then records whose fields may be quoted with doubled quotes inside.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // Index of the column named `name`; nullopt when the file has no such column (optional
  // columns that other versions of slicelab add or leave out).
  std::optional<size_t> column(std::string_view name) const;
};

// Parses `text`; rows shorter than the header are padded with empty fields so that every row
// can be indexed by every column. Throws std::runtime_error naming `what` on an unterminated
// quote.
CsvTable parse_csv(std::string_view text, std::string_view what);

// A field as a number; nullopt when it is empty or not a number (an absent optional value).
std::optional<double> csv_number(std::string_view field);

}  // namespace slicelab
