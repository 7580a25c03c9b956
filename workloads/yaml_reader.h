// Typed, located access to a parsed YAML document: every failed read becomes an InputError
// that names file:line:column, the field's path, what was expected and what was found.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab {

// Loads a YAML file; syntax errors, unreadable files and the refusals of check_yaml_syntax
// (aliases, deep nesting, duplicate keys, a second document) and check_utf8 become located
// InputErrors.
YAML::Node load_yaml_file(const std::string& path, uint64_t max_bytes = kMaxConfigYamlBytes);
// The same checks on a file's text already read; `path` names it in messages.
YAML::Node load_yaml_text(const std::string& text, const std::string& path);

// A yaml-cpp exception that escaped a reader (a lookup on a missing key's node, a conversion),
// as an InputError that names the file, and the line and column when yaml-cpp knows them.
// Every public loader catches YAML::Exception and throws this, so none reaches the user raw.
InputError located_yaml_error(const std::string& path, const YAML::Exception& e);

// Where a document parsed on its own begins in its file (0-based, as YAML::Mark counts): its
// nodes' marks count from its first byte, and a reader given the origin adds it back when it
// names a line and column (an item of a large List, parsed one at a time).
struct YamlOrigin {
  int line = 0;
  int column = 0;  // of the document's first line only
};

class YamlReader {
 public:
  explicit YamlReader(std::string file, YamlOrigin origin = {})
      : file_(std::move(file)), origin_(origin) {}
  const std::string& file() const { return file_; }
  // `mark` with the origin added to its line and column (its pos still counts from the start of
  // the parsed text); a null mark stays null.
  YAML::Mark in_file(YAML::Mark mark) const;

  [[noreturn]] void fail(const YAML::Node& at, std::string_view path, std::string_view what) const;
  [[noreturn]] void fail_expected(const YAML::Node& at, std::string_view path,
                                  std::string_view expected) const;

  // "file:line:column: path" for a message raised later, when the node is no longer at hand
  // (a generator's sampled values).
  std::string where(const YAML::Node& at, std::string_view path) const;

  void require_map(const YAML::Node& node, std::string_view path) const;
  void require_seq(const YAML::Node& node, std::string_view path) const;
  // Rejects keys outside `allowed`, suggesting the closest allowed key.
  void check_keys(const YAML::Node& map, std::string_view path,
                  std::initializer_list<std::string_view> allowed) const;
  YAML::Node required(const YAML::Node& map, std::string_view path, const char* key) const;

  std::string string(const YAML::Node& node, std::string_view path) const;
  int64_t integer(const YAML::Node& node, std::string_view path, int64_t min, int64_t max) const;
  double number(const YAML::Node& node, std::string_view path, double min, double max) const;
  bool boolean(const YAML::Node& node, std::string_view path) const;
  // Seconds: a number, or a Go duration (time.ParseDuration) with slicelab's "d" (24h):
  // "90s", "15m", "1h30m", "300ms", "2h45m30.5s", "1.5d".
  double duration(const YAML::Node& node, std::string_view path, double min_s = 0.0) const;
  std::vector<std::string> string_list(const YAML::Node& node, std::string_view path) const;
  // Fails at `at` unless `file` (a file the document names) is a regular file (or a link to
  // one): "KIND 'FILE' does not exist", "… is a folder; give a file", "… is not a regular file
  // (a device, pipe or socket)", or "… cannot be used: REASON" when even asking fails (a name
  // too long, no access), where std::filesystem would throw an unlocated filesystem_error and
  // the file's reader would name the file but not the key that names it.
  void require_file(const YAML::Node& at, std::string_view path, const std::filesystem::path& file,
                    std::string_view kind) const;

  // Optional-key variants: std::nullopt when the key is absent.
  std::optional<std::string> opt_string(const YAML::Node& map, std::string_view path,
                                        const char* key) const;
  std::optional<int64_t> opt_integer(const YAML::Node& map, std::string_view path, const char* key,
                                     int64_t min, int64_t max) const;
  std::optional<double> opt_number(const YAML::Node& map, std::string_view path, const char* key,
                                   double min, double max) const;
  std::optional<double> opt_duration(const YAML::Node& map, std::string_view path, const char* key,
                                     double min_s = 0.0) const;

 private:
  std::string file_;
  YamlOrigin origin_;
};

std::string join_path(std::string_view parent, std::string_view child);
std::string index_path(std::string_view parent, size_t index);

}  // namespace slicelab
