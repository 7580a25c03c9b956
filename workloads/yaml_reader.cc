#include "workloads/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include "workloads/input_error.h"

namespace slicelab {
namespace {

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return fmt::format("'{}'", node.Scalar());
}

size_t edit_distance(std::string_view a, std::string_view b) {
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

bool parse_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_int(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  try {
    return YAML::Load(in);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: invalid YAML: {}", path, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
}

std::string join_path(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  return fmt::format("{}.{}", parent, child);
}

std::string index_path(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

void YamlReader::fail(const YAML::Node& at, std::string_view path, std::string_view what) const {
  const YAML::Mark mark = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
  if (mark.is_null()) throw InputError(fmt::format("{}: {}: {}", file_, path, what));
  throw InputError(
      fmt::format("{}:{}:{}: {}: {}", file_, mark.line + 1, mark.column + 1, path, what));
}

void YamlReader::fail_expected(const YAML::Node& at, std::string_view path,
                               std::string_view expected) const {
  fail(at, path, fmt::format("expected {}, found {}", expected, describe(at)));
}

void YamlReader::require_map(const YAML::Node& node, std::string_view path) const {
  if (!node.IsMap()) fail_expected(node, path, "a mapping");
}

void YamlReader::require_seq(const YAML::Node& node, std::string_view path) const {
  if (!node.IsSequence()) fail_expected(node, path, "a list");
}

void YamlReader::check_keys(const YAML::Node& map, std::string_view path,
                            std::initializer_list<std::string_view> allowed) const {
  require_map(map, path);
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string_view best;
    size_t best_d = std::numeric_limits<size_t>::max();
    for (std::string_view a : allowed) {
      const size_t d = edit_distance(key, a);
      if (d < best_d) best_d = d, best = a;
    }
    std::string hint;
    if (best_d <= std::max<size_t>(2, key.size() / 3)) hint = fmt::format(" (did you mean '{}'?)", best);
    fail(kv.first, path.empty() ? std::string_view("scenario") : path,
         fmt::format("unknown key '{}'{}", key, hint));
  }
}

YAML::Node YamlReader::required(const YAML::Node& map, std::string_view path,
                                const char* key) const {
  require_map(map, path);
  YAML::Node v = map[key];
  if (!v.IsDefined()) fail(map, path.empty() ? "scenario" : path,
                           fmt::format("missing required key '{}'", key));
  return v;
}

std::string YamlReader::string(const YAML::Node& node, std::string_view path) const {
  if (!node.IsScalar() || node.Scalar().empty()) fail_expected(node, path, "a non-empty string");
  return node.Scalar();
}

int64_t YamlReader::integer(const YAML::Node& node, std::string_view path, int64_t min,
                            int64_t max) const {
  int64_t v = 0;
  const std::string expected = fmt::format("an integer in {}..{}", min, max);
  if (!node.IsScalar() || !parse_int(node.Scalar(), v) || v < min || v > max)
    fail_expected(node, path, expected);
  return v;
}

double YamlReader::number(const YAML::Node& node, std::string_view path, double min,
                          double max) const {
  double v = 0;
  const std::string expected = fmt::format("a number in {}..{}", format_number(min), format_number(max));
  if (!node.IsScalar() || !parse_double(node.Scalar(), v) || v < min || v > max)
    fail_expected(node, path, expected);
  return v;
}

bool YamlReader::boolean(const YAML::Node& node, std::string_view path) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  fail_expected(node, path, "true or false");
}

double YamlReader::duration(const YAML::Node& node, std::string_view path, double min_s) const {
  const std::string expected = fmt::format(
      "a duration of at least {}s (seconds, or a number with s, m, h or d)", format_number(min_s));
  if (!node.IsScalar()) fail_expected(node, path, expected);
  std::string_view text = node.Scalar();
  double scale = 1.0;
  if (!text.empty()) {
    switch (text.back()) {
      case 's': scale = 1.0; text.remove_suffix(1); break;
      case 'm': scale = 60.0; text.remove_suffix(1); break;
      case 'h': scale = 3600.0; text.remove_suffix(1); break;
      case 'd': scale = 86400.0; text.remove_suffix(1); break;
      default: break;
    }
  }
  double v = 0;
  if (!parse_double(text, v) || v * scale < min_s) fail_expected(node, path, expected);
  return v * scale;
}

int64_t YamlReader::mebibytes(const YAML::Node& node, std::string_view path) const {
  constexpr const char* kExpected = "a size in MiB (an integer, or a number with Mi, Gi or Ti)";
  if (!node.IsScalar()) fail_expected(node, path, kExpected);
  std::string_view text = node.Scalar();
  double scale = 1.0;
  if (text.size() > 2) {
    const std::string_view unit = text.substr(text.size() - 2);
    if (unit == "Mi") scale = 1.0, text.remove_suffix(2);
    else if (unit == "Gi") scale = 1024.0, text.remove_suffix(2);
    else if (unit == "Ti") scale = 1024.0 * 1024.0, text.remove_suffix(2);
  }
  double v = 0;
  if (!parse_double(text, v) || v < 0 || v * scale > 1e12) fail_expected(node, path, kExpected);
  return static_cast<int64_t>(std::llround(v * scale));
}

std::vector<std::string> YamlReader::string_list(const YAML::Node& node,
                                                 std::string_view path) const {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(string(node, path));
    return out;
  }
  if (!node.IsSequence()) fail_expected(node, path, "a string or a list of strings");
  for (size_t i = 0; i < node.size(); ++i) out.push_back(string(node[i], index_path(path, i)));
  return out;
}

std::optional<std::string> YamlReader::opt_string(const YAML::Node& map, std::string_view path,
                                                  const char* key) const {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return string(v, join_path(path, key));
}

std::optional<int64_t> YamlReader::opt_integer(const YAML::Node& map, std::string_view path,
                                               const char* key, int64_t min, int64_t max) const {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return integer(v, join_path(path, key), min, max);
}

std::optional<double> YamlReader::opt_number(const YAML::Node& map, std::string_view path,
                                             const char* key, double min, double max) const {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return number(v, join_path(path, key), min, max);
}

std::optional<double> YamlReader::opt_duration(const YAML::Node& map, std::string_view path,
                                               const char* key, double min_s) const {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return duration(v, join_path(path, key), min_s);
}

std::optional<int64_t> YamlReader::opt_mebibytes(const YAML::Node& map, std::string_view path,
                                                 const char* key) const {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return mebibytes(v, join_path(path, key));
}

}  // namespace slicelab
