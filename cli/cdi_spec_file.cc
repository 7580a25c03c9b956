#include "cli/cdi_spec_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "backends/device_plugin/host_files.h"
#include "reports/output_guard.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using device_plugin::CdiFormat;
using device_plugin::CdiSpec;

// Throws OutputRefused unless `text`, the file `path` holds, is a CDI spec of `kind`.
void check_replaceable(const std::string& text, const fs::path& path, const std::string& kind) {
  const std::string refuse_tail = fmt::format(
      "slicelab replaces only the CDI spec of kind {} it wrote; remove the file or give another "
      "--output",
      kind);
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
  const std::string name = target.filename().string();
  const std::string text = device_plugin::cdi_spec_text(spec, format);
  try {
    // The folder opened without following a link anywhere in its path (host_files.h; the
    // system's /var/run -> /run alias excepted), created when missing; the file read and
    // written through that descriptor.
    const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const device_plugin::HostFolder folder =
        device_plugin::HostFolder::open(parent, {.create = true});
    const std::optional<std::string> have = folder.read_file(name, device_plugin::kMaxCdiSpecBytes);
    if (have) check_replaceable(*have, target, spec.kind);
    using Existing = device_plugin::HostFolder::Existing;
    if (!folder.write_file(name, text, 0644, have ? Existing::kReplace : Existing::kMustBeAbsent))
      throw OutputRefused(fmt::format(
          "output file '{}' appeared while slicelab wrote its spec; not replaced", path));
  } catch (const device_plugin::HostPathError& e) {
    throw OutputRefused(fmt::format("output file '{}': {}", path, e.what()));
  }
}

}  // namespace slicelab
