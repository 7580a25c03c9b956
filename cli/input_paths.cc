#include "cli/input_paths.h"

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "workloads/input_error.h"

namespace slicelab {

namespace fs = std::filesystem;

// CLI11 turns only its own ValidationError into a parse error (exit 2); an InputError passes
// through app.parse() to main, which reports it as bad input.
CLI::Validator existing_input_file() {
  return CLI::Validator(
      [](const std::string& path) -> std::string {
        std::error_code ec;
        const fs::file_status st = fs::status(path, ec);
        if (!fs::exists(st))
          throw InputError(fmt::format("{}: cannot open file: no such file", path));
        if (fs::is_directory(st))
          throw InputError(fmt::format("{}: cannot open file: it is a folder", path));
        return "";
      },
      "FILE", "FILE");
}

CLI::Validator existing_input_folder() {
  return CLI::Validator(
      [](const std::string& path) -> std::string {
        std::error_code ec;
        const fs::file_status st = fs::status(path, ec);
        if (!fs::exists(st)) throw InputError(fmt::format("{}: no such folder", path));
        if (!fs::is_directory(st)) throw InputError(fmt::format("{}: not a folder", path));
        return "";
      },
      "DIR", "DIR");
}

}  // namespace slicelab
