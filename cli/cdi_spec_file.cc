#include "cli/cdi_spec_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "reports/output_guard.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using device_plugin::CdiFormat;
using device_plugin::CdiSpec;

// Throws OutputRefused unless the regular file `path` holds a CDI spec of `kind`.
void check_replaceable(const fs::path& path, const std::string& kind) {
  const std::string refuse_tail = fmt::format(
      "slicelab replaces only the CDI spec of kind {} it wrote; remove the file or give another "
      "--output",
      kind);
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size > device_plugin::kMaxCdiSpecBytes)
    throw OutputRefused(fmt::format("output file '{}' exists and is not a CDI spec ({}); {}",
                                    path.string(), ec ? ec.message() : "too large", refuse_tail));
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    throw OutputRefused(
        fmt::format("output file '{}' exists and cannot be read; {}", path.string(), refuse_tail));
  CdiSpec existing;
  try {
    existing = device_plugin::parse_cdi_spec(text, path.string());
  } catch (const InputError& e) {
    throw OutputRefused(
        fmt::format("output file '{}' exists and is not a CDI spec slicelab "
                    "wrote ({}); {}",
                    path.string(), e.what(), refuse_tail));
  }
  if (existing.kind != kind)
    throw OutputRefused(fmt::format("output file '{}' holds the CDI spec of kind {}; {}",
                                    path.string(), existing.kind, refuse_tail));
}

}  // namespace

CdiFormat cdi_format_for(const std::string& path, const std::string& option) {
  if (option == "json") return CdiFormat::kJson;
  if (option == "yaml") return CdiFormat::kYaml;
  if (!option.empty())
    throw InputError(fmt::format("--format: expected json or yaml, found '{}'", option));
  return fs::path(path).extension() == ".json" ? CdiFormat::kJson : CdiFormat::kYaml;
}

void write_cdi_spec(const CdiSpec& spec, CdiFormat format, const std::string& path) {
  if (const std::vector<std::string> errors = device_plugin::validate_cdi_spec(spec);
      !errors.empty())
    throw InputError(fmt::format("the CDI spec for {} is not valid:\n  {}", spec.kind,
                                 fmt::join(errors, "\n  ")));
  const fs::path target = check_output_file(path);
  const fs::path ext = target.extension();
  if (ext != ".json" && ext != ".yaml")
    throw OutputRefused(fmt::format(
        "output file '{}': a CDI spec's name must end in .json or .yaml (container runtimes "
        "read no other file of their CDI folders)",
        path));
  std::error_code ec;
  if (fs::symlink_status(target, ec).type() == fs::file_type::regular)
    check_replaceable(target, spec.kind);
  if (const fs::path parent = target.parent_path(); !parent.empty()) fs::create_directories(parent);
  replace_file_via_temp(target, device_plugin::cdi_spec_text(spec, format));
}

}  // namespace slicelab
