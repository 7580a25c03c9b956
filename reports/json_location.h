// Where a value of a JSON text lies (line and column), found from its path by scanning the text:
// nlohmann keeps no positions, and errors about a file's content must name them.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace slicelab {

// One step from a container to a value in it: a member's key, or an element's index.
struct JsonStep {
  std::string_view key;  // when !is_index
  size_t index = 0;      // when is_index
  bool is_index = false;
};

// 1-based, columns in bytes (as the YAML readers count them).
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};

// The position of the first character of the value reached by `steps` from the root of `text`,
// which must be valid JSON (a text the parser accepted). For a repeated key, the last one (the
// one the parser keeps). Where a step cannot be followed (a key the object lacks, an index past
// its end), the position of the container it starts from. Linear in the text; no recursion.
TextPosition json_value_position(std::string_view text, std::span<const JsonStep> steps);

// The position of byte `offset` of `text`.
TextPosition text_position(std::string_view text, size_t offset);

// "policies[3].pods.failed" ("top level" for the root): how messages name a value.
std::string json_path_text(std::span<const JsonStep> steps);

}  // namespace slicelab
