// How numbers and text are written into result files (summary JSON, pods/plan/sweep CSVs), so
// every file rounds and quotes the same way and stays byte-stable.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// Nine significant digits: enough for any metric, and free of binary-fraction noise.
inline double tidy_value(double v) {
  if (!std::isfinite(v)) return 0.0;
  return std::stod(fmt::format("{:.9g}", v));
}

// A tidied number, or null when there is none.
inline nlohmann::ordered_json json_value(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(tidy_value(*v)) : nlohmann::ordered_json(nullptr);
}

// RFC 4180 quoting: only fields holding a comma, quote or newline are quoted.
// Appended to `out` without a temporary string (the pods.csv writer's per-row path).
inline void append_csv_field(fmt::memory_buffer& out, std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) {
    out.append(s);
    return;
  }
  out.push_back('"');
  for (const char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

// The same as a string.
inline std::string csv_field(std::string_view s) {
  fmt::memory_buffer out;
  append_csv_field(out, s);
  return fmt::to_string(out);
}

}  // namespace slicelab
