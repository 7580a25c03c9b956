// libFuzzer target for the interposer's configuration readers: the input is read both as an
// environment of NAME=VALUE lines (load_config, parse_size, parse_percent; nearest_known_name
// through load_config's warnings about unknown SLICELAB_* names)
// and as a caps file (parse_caps_file). Neither may crash or throw; what they return must be in
// range, a configuration that failed closed must refuse everything, and caps the file reader
// accepts must come back the same through the writer (caps_file_text) and the reader again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/interposer/caps_file.h"
#include "backends/interposer/config.h"

namespace {

using namespace slicelab::interposer;

void require(bool ok) {
  if (!ok) std::abort();
}

void check_caps(const DeviceCaps& d, bool failed) {
  if (failed) {
    require(d.memory_bytes == 0 && d.sm_percent == kFailClosedPercent);
    return;
  }
  require(d.memory_bytes == UINT64_MAX || (d.memory_bytes >= 1 && d.memory_bytes <= kMaxMemoryCap));
  require(d.sm_percent >= 1 && d.sm_percent <= 100);
}

void check(const Config& c) {
  const bool failed = !c.fail_closed.empty();
  for (const auto& d : c.devices) check_caps(d, failed);
  check_caps(c.other, failed);
  require(c.measure_every >= 1 && c.measure_every <= 1024);
  require(c.region_gid >= -1);
  for (const auto& w : c.warnings) require(!w.empty());
}

void check_environment(std::string_view text) {
  std::map<std::string, std::string> env;
  std::vector<std::string> names;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const size_t eq = line.find('=');
    // A name holds no '=' and no NUL (getenv could not see past either).
    if (eq == std::string_view::npos || eq == 0 ||
        line.substr(0, eq).find('\0') != std::string_view::npos)
      continue;
    std::string value(line.substr(eq + 1));
    if (const size_t nul = value.find('\0'); nul != std::string::npos) value.resize(nul);
    const std::string name(line.substr(0, eq));
    if (env.emplace(name, value).second) names.push_back(name);
    std::string why;
    if (auto b = parse_size(value, &why))
      require(*b >= 1 && *b <= kMaxMemoryCap);
    else
      require(!why.empty());
    if (auto p = parse_percent(value)) require(*p >= 0 && *p <= 100);
  }
  check(load_config(
      [&](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      names));
}

void check_caps_file(std::string_view text) {
  const Config c = parse_caps_file(text, "caps");
  check(c);
  require(c.caps_file == "caps");
  if (!c.fail_closed.empty()) {
    require(c.fail_closed.starts_with("caps:"));
    return;
  }
  // What was read, written back per device, reads back the same.
  CapsFileContents contents;
  contents.region_path = c.region_path;
  for (const auto& d : c.devices)
    contents.devices.push_back(CapsFileDevice{d.memory_bytes, d.sm_percent});
  std::string again;
  try {
    again = caps_file_text(contents);
  } catch (const std::invalid_argument&) {
    // Only a region the writer keeps shorter than a line may be refused.
    require(c.region_path.size() > kMaxCapsLineBytes / 2);
    return;
  }
  const Config d = parse_caps_file(again, "again");
  require(d.fail_closed.empty());
  require(d.region_path == c.region_path);
  for (int i = 0; i < kMaxDevices; ++i) {
    require(d.devices[i].memory_bytes == c.devices[i].memory_bytes);
    require(d.devices[i].sm_percent == c.devices[i].sm_percent);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_environment(text);
  check_caps_file(text);
  return 0;
}
