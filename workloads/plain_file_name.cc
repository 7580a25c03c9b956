#include "workloads/plain_file_name.h"

#include <fmt/format.h>

namespace slicelab {

std::optional<std::string> plain_file_name_problem(std::string_view name) {
  constexpr const char* kUse =
      "; the name becomes a results folder (results/<name>): use letters, digits, '-', '_' "
      "or '.'";
  if (name.empty()) return fmt::format("is empty{}", kUse);
  if (name == "." || name == "..")
    return fmt::format("'{}' is not a plain file name{}", name, kUse);
  if (name.find('/') != std::string_view::npos)
    return fmt::format("contains '/' (found '{}'){}", name, kUse);
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      return fmt::format("contains the control character 0x{:02x}{}", u, kUse);
  }
  if (name.size() > 255)
    return fmt::format("is {} bytes long, more than a file name may have (255)", name.size());
  return std::nullopt;
}

}  // namespace slicelab
