#include "reports/json_location.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace slicelab {
namespace {

constexpr size_t kNone = std::string_view::npos;

size_t skip_space(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// `i` at an opening quote: the index after the closing one.
size_t skip_string(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;  // the escaped character cannot end the string
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

// `i` at the first character of a value: the index after its last.
size_t skip_value(std::string_view t, size_t i) {
  if (i >= t.size()) return i;
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    size_t depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = skip_string(t, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return i;
  }
  // A number or a literal: up to the next delimiter.
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\t' &&
         t[i] != '\n' && t[i] != '\r')
    ++i;
  return i;
}

// Whether the string token t[begin, end) (quotes included) spells `key`.
bool key_is(std::string_view t, size_t begin, size_t end, std::string_view key) {
  const std::string_view token = t.substr(begin, end - begin);
  if (token.size() < 2) return false;
  const std::string_view inner = token.substr(1, token.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return inner == key;
  try {  // escapes: decoded as the parser decoded them (rare, and only on the way to an error)
    return nlohmann::json::parse(token).get<std::string>() == key;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

// The start of the member `key` of the object at `i` (its last occurrence); kNone if absent.
size_t find_member(std::string_view t, size_t i, std::string_view key) {
  size_t found = kNone;
  i = skip_space(t, i + 1);
  while (i < t.size() && t[i] == '"') {
    const size_t key_end = skip_string(t, i);
    const bool match = key_is(t, i, key_end, key);
    i = skip_space(t, key_end);
    if (i < t.size() && t[i] == ':') i = skip_space(t, i + 1);
    if (match) found = i;
    i = skip_space(t, skip_value(t, i));
    if (i < t.size() && t[i] == ',') i = skip_space(t, i + 1);
  }
  return found;
}

// The start of element `index` of the array at `i`; kNone past its end.
size_t find_element(std::string_view t, size_t i, size_t index) {
  i = skip_space(t, i + 1);
  for (size_t n = 0; i < t.size() && t[i] != ']'; ++n) {
    if (n == index) return i;
    i = skip_space(t, skip_value(t, i));
    if (i < t.size() && t[i] == ',') i = skip_space(t, i + 1);
  }
  return kNone;
}

}  // namespace

TextPosition text_position(std::string_view text, size_t offset) {
  TextPosition p;
  size_t line_start = 0;
  const size_t end = std::min(offset, text.size());
  for (size_t i = 0; i < end; ++i)
    if (text[i] == '\n') ++p.line, line_start = i + 1;
  p.column = end - line_start + 1;
  return p;
}

TextPosition json_value_position(std::string_view text, std::span<const JsonStep> steps) {
  size_t at = 0;
  if (text.starts_with("\xEF\xBB\xBF")) at = 3;  // a byte order mark, which the parser skips
  at = skip_space(text, at);
  for (const JsonStep& s : steps) {
    if (at >= text.size()) break;
    size_t next = kNone;
    if (!s.is_index && text[at] == '{') next = find_member(text, at, s.key);
    if (s.is_index && text[at] == '[') next = find_element(text, at, s.index);
    if (next == kNone) break;
    at = next;
  }
  return text_position(text, at);
}

std::string json_path_text(std::span<const JsonStep> steps) {
  if (steps.empty()) return "top level";
  std::string out;
  for (const JsonStep& s : steps) {
    if (s.is_index)
      out += fmt::format("[{}]", s.index);
    else
      out += out.empty() ? std::string(s.key) : fmt::format(".{}", s.key);
  }
  return out;
}

}  // namespace slicelab
