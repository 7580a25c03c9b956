#include "reports/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "reports/output_guard.h"

namespace slicelab {

void write_output_file(const std::string& file, const std::string& content,
                       std::span<const std::string> inputs) {
  namespace fs = std::filesystem;
  const fs::path p = check_output_file(file, inputs);
  const fs::path tmp = p.string() + fmt::format(".slicelab-tmp-{}", ::getpid());
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw InputError(fmt::format("{}: cannot write file", file));
      out << content;
      out.close();
      if (!out) throw InputError(fmt::format("{}: cannot write file", file));
    }
    fs::rename(tmp, p);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

}  // namespace slicelab
