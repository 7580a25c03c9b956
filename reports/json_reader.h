// Typed, located reading of the JSON files slicelab reads back (summary.json, plan.json,
// sweep.json): a value that is not what the format says becomes an InputError
// "FILE:LINE:COL: PATH: expected X, found Y", the shape of every other input error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/json_location.h"
#include "workloads/input_error.h"

namespace slicelab {

// A value of a parsed document and the way to it from the root, so that a message can name its
// path and (by scanning the text) its line and column. It refers to the JsonAt it was reached
// from, so it is made from a named one: member() and element() of a temporary do not compile.
class JsonAt {
 public:
  explicit JsonAt(const nlohmann::ordered_json& root) : value_(&root) {}
  const nlohmann::ordered_json& value() const { return *value_; }
  const nlohmann::ordered_json* operator->() const { return value_; }

  // The member `key`; nullopt when this is not an object or has no such member.
  std::optional<JsonAt> member(std::string_view key) const&;
  std::optional<JsonAt> member(std::string_view key) const&& = delete;
  // Element `i` of this array (i < size()).
  JsonAt element(size_t i) const&;
  JsonAt element(size_t i) const&& = delete;
  // The member `key` whose value is `v` (while iterating an object's items()).
  JsonAt child(std::string_view key, const nlohmann::ordered_json& v) const&;
  JsonAt child(std::string_view key, const nlohmann::ordered_json& v) const&& = delete;

  // From the root to this value.
  std::vector<JsonStep> steps() const;

 private:
  JsonAt(const nlohmann::ordered_json* v, const JsonAt* parent, JsonStep step)
      : value_(v), parent_(parent), step_(step) {}
  const nlohmann::ordered_json* value_;
  const JsonAt* parent_ = nullptr;
  JsonStep step_{};
};

// Calls `fn(member)` for the member `key` of the object `at` when it has one.
template <typename Fn>
void with_member(const JsonAt& at, std::string_view key, Fn fn) {
  if (const std::optional<JsonAt> m = at.member(key)) fn(*m);
}

// A JSON file read for its content, with the text kept for locating values in messages.
class JsonFile {
 public:
  // Reads and parses `path` as read_json_file does (size, nesting and syntax checked; errors
  // located). Throws InputError.
  explicit JsonFile(const std::string& path);
  // A text already read, named `path` in messages (tests, and readers of several documents).
  JsonFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const nlohmann::ordered_json& root() const { return root_; }
  JsonAt at_root() const { return JsonAt(root_); }
  // The parsed document, moved out: for a reader done with checking it.
  nlohmann::ordered_json take_root() { return std::move(root_); }

  // "FILE:LINE:COL: PATH" of `at`.
  std::string where(const JsonAt& at) const;
  [[noreturn]] void fail(const JsonAt& at, std::string_view what) const;
  // "…: expected EXPECTED, found <what `at` holds>".
  [[noreturn]] void fail_expected(const JsonAt& at, std::string_view expected) const;

  void require_object(const JsonAt& at) const;
  void require_array(const JsonAt& at) const;
  // The member `key` of the object `at`; fails at `at` when it is missing.
  JsonAt required(const JsonAt& at, std::string_view key) const;

  const std::string& string(const JsonAt& at) const;
  bool boolean(const JsonAt& at) const;
  // A finite number.
  double number(const JsonAt& at) const;
  // A whole number of at least 0 (a count of pods, points, rows), at most `max`.
  uint64_t count(const JsonAt& at, uint64_t max = UINT64_MAX) const;
  // As above, where JSON null (no value) is allowed too.
  std::optional<double> number_or_null(const JsonAt& at) const;
  std::optional<std::string> string_or_null(const JsonAt& at) const;

 private:
  std::string path_;
  std::string text_;
  nlohmann::ordered_json root_;
};

// What a value is, for "found …": "null", "true", 12, "a list", "an object", a string quoted
// and cut at 60 characters.
std::string describe_json(const nlohmann::ordered_json& v);

}  // namespace slicelab
