#include "workloads/text_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "workloads/input_error.h"

namespace slicelab {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot open file: it is a folder", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return std::move(buffer).str();
}

}  // namespace slicelab
