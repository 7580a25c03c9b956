#include "reports/json_file.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/ordered_json_parse.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

// nlohmann's message without its "[json.exception.parse_error.101] " tag and, for parse
// errors, without the "parse error at line 1, column 5: " that the located prefix replaces.
std::string plain_message(const std::string& what) {
  std::string m = what;
  if (m.starts_with("[json.exception.")) {
    const size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  if (m.starts_with("parse error")) {
    const size_t column = m.find(", column ");
    const size_t colon = column == std::string::npos ? column : m.find(": ", column);
    if (colon != std::string::npos) m = m.substr(colon + 2);
  }
  return m;
}

}  // namespace

void check_json_depth(std::string_view text, const std::string& path) {
  int depth = 0;
  size_t line = 1;
  size_t line_start = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(fmt::format("{}:{}:{}: JSON nested deeper than {} levels", path, line,
                                     i - line_start + 1, kMaxJsonDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

nlohmann::ordered_json read_json_file(const std::string& path) {
  return parse_json_text(read_text_file(path, kMaxJsonBytes), path);
}

nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& path) {
  check_json_depth(text, path);
  try {
    return parse_ordered_json(text);  // linear in the keys (nlohmann's is not)
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the position of the character that failed.
    size_t line = 1;
    size_t line_start = 0;
    const size_t at = e.byte == 0 ? 0 : std::min(e.byte - 1, text.size());
    for (size_t i = 0; i < at; ++i)
      if (text[i] == '\n') ++line, line_start = i + 1;
    throw InputError(fmt::format("{}:{}:{}: not valid JSON: {}", path, line, at - line_start + 1,
                                 plain_message(e.what())));
  } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond a double's range
    throw InputError(fmt::format("{}: not valid JSON: {}", path, plain_message(e.what())));
  }
}

InputError json_content_error(const std::string& path, const nlohmann::json::exception& e) {
  return InputError(fmt::format("{}: unexpected content: {}", path, plain_message(e.what())));
}

}  // namespace slicelab
