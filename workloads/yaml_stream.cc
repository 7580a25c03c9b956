#include "workloads/yaml_stream.h"

#include <fmt/format.h>

#include <string_view>

#include "workloads/input_error.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Where each top-level JSON value after the first begins, when the text is a run of JSON objects
// or arrays; empty for anything else (YAML, one JSON value). Strings are skipped whole, so
// braces inside them do not count.
std::vector<size_t> json_value_starts(std::string_view text) {
  std::vector<size_t> starts;
  size_t i = 0;
  while (i < text.size() && blank(text[i])) ++i;
  if (i == text.size() || (text[i] != '{' && text[i] != '[')) return starts;
  int depth = 0;
  bool in_string = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth == 0 && i > 0 && !starts.empty() && starts.back() == SIZE_MAX) starts.back() = i;
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) starts.push_back(SIZE_MAX);  // the next value's start, when one comes
    } else if (depth == 0 && !blank(c)) {
      return {};  // text between values: not a JSON stream; the parser will say what it is
    }
  }
  if (!starts.empty() && starts.back() == SIZE_MAX) starts.pop_back();
  return starts;
}

// "--- " before every value after the first makes the run a YAML stream. A value that opens
// its line (kubectl, jq) keeps its line numbers; only its first line's columns shift by 4.
std::string as_yaml_stream(const std::string& text, const std::vector<size_t>& starts) {
  std::string out;
  out.reserve(text.size() + starts.size() * 5);
  size_t from = 0;
  for (const size_t at : starts) {
    out.append(text, from, at - from);
    const bool line_start = at == 0 || text[at - 1] == '\n';
    out += line_start ? "--- " : "\n--- ";
    from = at;
  }
  out.append(text, from, std::string::npos);
  return out;
}

}  // namespace

std::vector<YAML::Node> load_yaml_documents(const std::string& path, uint64_t max_bytes,
                                            std::string* parsed_text) {
  std::string text = read_text_file(path, max_bytes);
  check_utf8(text, path);
  if (const auto starts = json_value_starts(text); !starts.empty())
    text = as_yaml_stream(text, starts);
  try {
    check_yaml_syntax(text, path, true);
    std::vector<YAML::Node> docs;
    for (YAML::Node& d : YAML::LoadAll(text))
      if (d.IsDefined() && !d.IsNull()) docs.push_back(std::move(d));
    if (parsed_text != nullptr) *parsed_text = std::move(text);
    return docs;
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: invalid YAML or JSON: {}", path, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
}

}  // namespace slicelab
