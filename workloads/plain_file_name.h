// Whether a user-given name (a scenario's or a sweep's `name:`) can become one folder name of
// the results path: results/<name> must never climb out of results/ or be the folder itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// What makes `name` unusable as a single file name, or nullopt when it is fine: empty, "." or
// "..", a '/' (so no absolute path either), a NUL or another control character, or longer than
// the 255 bytes a file name may have.
std::optional<std::string> plain_file_name_problem(std::string_view name);

}  // namespace slicelab
