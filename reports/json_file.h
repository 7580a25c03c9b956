// Reading the JSON files slicelab reads back (summary.json, plan.json, sweep.json): size and
// nesting limits checked before parsing, and every nlohmann error as a message with the file.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "workloads/input_error.h"

namespace slicelab {

// How deep arrays and objects may nest; slicelab writes at most 6 levels. Checked before
// parsing, since operations on a parsed value (comparison, copying) recurse once per level and
// 50,000 levels overflow the stack.
inline constexpr int kMaxJsonDepth = 64;

// Throws InputError "PATH:LINE:COL: JSON nested deeper than 64 levels" at the first bracket
// past the limit (strings and escapes skipped). Linear, no recursion.
void check_json_depth(std::string_view text, const std::string& path);

// The parsed file. Throws InputError when it cannot be read (read_text_file, with
// kMaxJsonBytes), nests too deep, or is not valid JSON ("PATH:LINE:COL: not valid JSON: …").
nlohmann::ordered_json read_json_file(const std::string& path);

// As read_json_file, for `text` already read from `path` (named in the messages).
nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& path);

// An nlohmann exception raised while reading the content of `path` (a value of the wrong type,
// a missing member), as an InputError naming the file, without nlohmann's "[json.exception…]".
InputError json_content_error(const std::string& path, const nlohmann::json::exception& e);

}  // namespace slicelab
