// How numbers and text are written into result files (summary JSON, pods/plan/sweep CSVs), so
// every file rounds and quotes the same way and stays byte-stable.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
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
// The room write_csv_field may need for `s`: every character a quote, and the two around it.
inline size_t csv_field_room(std::string_view s) {
  return 2 * s.size() + 2;
}

// Writes `s` as a field at `out`, which has csv_field_room(s) characters of room, and returns
// the end (the pods.csv writer's per-row path, written in place).
inline char* write_csv_field(char* out, std::string_view s) {
  // A plain loop, not find_first_of: libstdc++'s calls memchr on the set once per character, a
  // fifth of a million-pod pods.csv's formatting.
  bool plain = true;
  for (const char c : s) plain &= c != ',' && c != '"' && c != '\n';
  if (plain) {
    if (!s.empty()) std::memcpy(out, s.data(), s.size());
    return out + s.size();
  }
  *out++ = '"';
  for (const char c : s) {
    if (c == '"') *out++ = '"';
    *out++ = c;
  }
  *out++ = '"';
  return out;
}

// Appended to `out` without a temporary string.
inline void append_csv_field(fmt::memory_buffer& out, std::string_view s) {
  const size_t size = out.size();
  out.resize(size + csv_field_room(s));
  out.resize(static_cast<size_t>(write_csv_field(out.data() + size, s) - out.data()));
}

// The same as a string.
inline std::string csv_field(std::string_view s) {
  fmt::memory_buffer out;
  append_csv_field(out, s);
  return fmt::to_string(out);
}

}  // namespace slicelab
