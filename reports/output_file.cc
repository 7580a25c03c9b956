#include "reports/output_file.h"

#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "reports/output_guard.h"

namespace slicelab {

void write_output_file(const std::string& file, const std::string& content,
                       std::span<const std::string> inputs) {
  namespace fs = std::filesystem;
  const fs::path p = check_output_file(file, inputs);
  replace_file_via_temp(p, content);
}

void write_own_output_file(const std::string& file, const std::string& content,
                           std::span<const std::string> inputs) {
  if (!std::string_view(content).starts_with(kOwnFileLine))
    throw std::logic_error("write_own_output_file: the content does not begin with kOwnFileLine");
  replace_file_via_temp(check_own_output_file(file, inputs), content);
}

}  // namespace slicelab
