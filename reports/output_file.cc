#include "reports/output_file.h"

#include <filesystem>

#include "reports/output_guard.h"

namespace slicelab {

void write_output_file(const std::string& file, const std::string& content,
                       std::span<const std::string> inputs) {
  namespace fs = std::filesystem;
  const fs::path p = check_output_file(file, inputs);
  replace_file_via_temp(p, content);
}

}  // namespace slicelab
