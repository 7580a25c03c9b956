#include "workloads/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "workloads/edit_distance.h"
#include "workloads/go_duration.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/text_file.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab {
namespace {

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return fmt::format("'{}'", node.Scalar());
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

// yaml-cpp's message for a tab in the indentation ("illegal block entry", "illegal map value")
// does not say why; name the cause when the failing line is indented with a tab.
std::string tab_hint(const std::string& text, int line) {
  std::istringstream lines(text);
  std::string l;
  for (int i = 0; i <= line; ++i)
    if (!std::getline(lines, l)) return "";
  const size_t indent_end = l.find_first_not_of(" \t");
  if (l.substr(0, indent_end).find('\t') == std::string::npos) return "";
  return " (this line is indented with a tab; YAML indentation must use spaces)";
}

// No field of the scenario or trace formats takes an empty value ("duration:" with nothing
// after it). yaml-cpp marks such a value at the next token, often on a later line, so find it
// here, at its key, while the key's position is still at hand. Returns the path below `node`
// (built only on the way out, so a clean file costs no strings) and the key's mark.
bool find_empty_value(const YAML::Node& node, std::string& path, YAML::Mark& mark) {
  const auto prefix = [&path](const std::string& head) {
    path = head + (path.starts_with('[') ? "" : ".") + path;
  };
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (kv.second.IsNull()) {
        path = kv.first.Scalar();
        mark = kv.first.Mark();
        return true;
      }
      if (find_empty_value(kv.second, path, mark)) {
        prefix(kv.first.Scalar());
        return true;
      }
    }
  } else if (node.IsSequence()) {
    size_t i = 0;
    for (const auto& item : node) {
      if (find_empty_value(item, path, mark)) {
        prefix(fmt::format("[{}]", i));
        return true;
      }
      ++i;
    }
  }
  return false;
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path, uint64_t max_bytes) {
  return load_yaml_text(read_text_file(path, max_bytes), path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& path) {
  check_utf8(text, path);
  const YAML::Node root = [&] {
    try {
      // The syntax checks run first, on events: they refuse aliases and deep nesting before
      // YAML::Load or the empty-value search below could expand or recurse into them.
      check_yaml_syntax(text, path);
      return YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      throw InputError(fmt::format("{}:{}:{}: invalid YAML: {}{}", path, e.mark.line + 1,
                                   e.mark.column + 1, e.msg, tab_hint(text, e.mark.line)));
    }
  }();
  std::string where;
  YAML::Mark mark;
  if (find_empty_value(root, where, mark))
    throw InputError(fmt::format("{}:{}:{}: {}: expected a value, found nothing", path,
                                 mark.line + 1, mark.column + 1, where));
  return root;
}

InputError located_yaml_error(const std::string& path, const YAML::Exception& e) {
  if (e.mark.is_null()) return InputError(fmt::format("{}: {}", path, e.msg));
  return InputError(fmt::format("{}:{}:{}: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
}

std::string join_path(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  return fmt::format("{}.{}", parent, child);
}

std::string index_path(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

YAML::Mark YamlReader::in_file(YAML::Mark mark) const {
  if (mark.is_null()) return mark;
  if (mark.line == 0) mark.column += origin_.column;
  mark.line += origin_.line;
  return mark;
}

void YamlReader::fail(const YAML::Node& at, std::string_view path, std::string_view what) const {
  const YAML::Mark mark = in_file(at.IsDefined() ? at.Mark() : YAML::Mark::null_mark());
  // The document's root has no path of its own; name it so the message keeps its shape.
  if (path.empty()) path = "top level";
  if (mark.is_null()) throw InputError(fmt::format("{}: {}: {}", file_, path, what));
  throw InputError(
      fmt::format("{}:{}:{}: {}: {}", file_, mark.line + 1, mark.column + 1, path, what));
}

std::string YamlReader::where(const YAML::Node& at, std::string_view path) const {
  const YAML::Mark mark = in_file(at.IsDefined() ? at.Mark() : YAML::Mark::null_mark());
  if (mark.is_null()) return fmt::format("{}: {}", file_, path);
  return fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1, path);
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
  // yaml-cpp keeps both entries of a repeated key and lookups see only the first, so a second
  // value would be silently ignored: reject it.
  // A hash set keeps this linear: a mapping with 100,000 keys was checked in quadratic time.
  std::unordered_map<std::string, YAML::Mark> seen;
  seen.reserve(map.size());
  for (const auto& kv : map) {
    const std::string& key = kv.first.Scalar();
    if (auto [it, fresh] = seen.emplace(key, in_file(kv.first.Mark())); !fresh)
      fail(kv.first, path,
           fmt::format("duplicate key '{}' (also on line {})", key, it->second.line + 1));
  }
  for (const auto& kv : map) {
    const std::string& key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    // Suggest the closest allowed key within a few edits, or one that the key starts with or
    // that starts with the key ("max_queue_delay" -> "max_queue", "memory" -> "memory_mib").
    const size_t limit = std::max<size_t>(2, key.size() / 3);
    std::string_view best;
    size_t best_d = std::numeric_limits<size_t>::max();
    for (std::string_view a : allowed) {
      const size_t d = edit_distance(key, a);
      const bool prefix = std::min(key.size(), a.size()) >= 3 &&
                          (key.starts_with(a) || a.starts_with(std::string_view(key)));
      if ((d <= limit || prefix) && d < best_d) best_d = d, best = a;
    }
    std::string hint;
    if (!best.empty()) hint = fmt::format(" (did you mean '{}'?)", best);
    fail(kv.first, path, fmt::format("unknown key '{}'{}", key, hint));
  }
}

YAML::Node YamlReader::required(const YAML::Node& map, std::string_view path,
                                const char* key) const {
  require_map(map, path);
  YAML::Node v = map[key];
  if (!v.IsDefined()) fail(map, path, fmt::format("missing required key '{}'", key));
  return v;
}

std::string YamlReader::string(const YAML::Node& node, std::string_view path) const {
  if (!node.IsScalar() || node.Scalar().empty()) fail_expected(node, path, "a non-empty string");
  return node.Scalar();
}

int64_t YamlReader::integer(const YAML::Node& node, std::string_view path, int64_t min,
                            int64_t max) const {
  int64_t v = 0;
  const std::string expected = max == std::numeric_limits<int64_t>::max()
                                   ? fmt::format("an integer of at least {}", min)
                                   : fmt::format("an integer in {}..{}", min, max);
  if (!node.IsScalar() || !parse_int(node.Scalar(), v) || v < min || v > max)
    fail_expected(node, path, expected);
  return v;
}

double YamlReader::number(const YAML::Node& node, std::string_view path, double min,
                          double max) const {
  double v = 0;
  const std::string expected =
      fmt::format("a number in {}..{}", format_number(min), format_number(max));
  if (!node.IsScalar() || !parse_double(node.Scalar(), v) || v < min || v > max)
    fail_expected(node, path, expected);
  return v;
}

bool YamlReader::boolean(const YAML::Node& node, std::string_view path) const {
  if (node.IsScalar()) {
    // The spellings of YAML 1.1 that yaml-cpp itself accepts: lower, Capitalised or UPPER case.
    const std::string& s = node.Scalar();
    for (std::string_view t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
      if (s == t) return true;
    for (std::string_view f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
      if (s == f) return false;
  }
  fail_expected(node, path, "true or false");
}

double YamlReader::duration(const YAML::Node& node, std::string_view path, double min_s) const {
  const std::string expected = fmt::format(
      "a duration of at least {}s (seconds, or a Go duration such as 90s, 1h30m, 300ms, 1.5d)",
      format_number(min_s));
  if (!node.IsScalar()) fail_expected(node, path, expected);
  const std::string& scalar = node.Scalar();
  // A number with at most one unit letter is read as before (it allows "1e3s", which Go does
  // not), so every existing scenario keeps its exact seconds; anything else is a Go duration.
  std::string_view text = scalar;
  double scale = 1.0;
  if (!text.empty()) {
    switch (text.back()) {
      case 's':
        scale = 1.0;
        text.remove_suffix(1);
        break;
      case 'm':
        scale = 60.0;
        text.remove_suffix(1);
        break;
      case 'h':
        scale = 3600.0;
        text.remove_suffix(1);
        break;
      case 'd':
        scale = 86400.0;
        text.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  double seconds = 0;
  if (double v = 0; parse_double(text, v)) {
    seconds = v * scale;
  } else {
    std::string error;
    const std::optional<double> go = parse_go_duration(scalar, error);
    if (!go) fail(node, path, fmt::format("expected {}, found '{}': {}", expected, scalar, error));
    seconds = *go;
  }
  if (seconds < min_s) fail_expected(node, path, expected);
  // "1e308h" is finite as written and infinite in seconds; the horizon refuses both it and
  // any time that would make a run sample or queue for longer than the limits allow.
  if (!(seconds <= kHorizonS))
    fail_expected(node, path,
                  fmt::format("a duration of at most {} (the simulation horizon)", kHorizonText));
  return seconds;
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

void YamlReader::require_file(const YAML::Node& at, std::string_view path,
                              const std::filesystem::path& file, std::string_view kind) const {
  std::error_code ec;
  // Links are followed: a link to a regular file is that file.
  const std::filesystem::file_type type = std::filesystem::status(file, ec).type();
  if (type == std::filesystem::file_type::regular) return;
  if (type == std::filesystem::file_type::directory)
    fail(at, path, fmt::format("{} '{}' is a folder; give a file", kind, file.string()));
  if (type == std::filesystem::file_type::not_found || ec == std::errc::no_such_file_or_directory)
    fail(at, path, fmt::format("{} '{}' does not exist", kind, file.string()));
  if (ec)
    fail(at, path, fmt::format("{} '{}' cannot be used: {}", kind, file.string(), ec.message()));
  fail(at, path,
       fmt::format("{} '{}' is not a regular file (a device, pipe or socket); give a file", kind,
                   file.string()));
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

}  // namespace slicelab
