// libFuzzer target for the interposer's configuration parser (load_config, parse_size,
// parse_percent, nearest_known_name) on a synthetic environment: the input is NAME=VALUE lines.
// The parser must never crash or throw, and what it returns must be in range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backends/interposer/config.h"

namespace {

using namespace slicelab::interposer;

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
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
    (void)parse_size(value);
    if (auto p = parse_percent(value)) require(*p >= 0 && *p <= 100);
    (void)nearest_known_name(name);
  }
  const Config c = load_config(
      [&](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      names);
  for (const auto& d : c.devices) {
    require(d.memory_bytes > 0);
    require(d.sm_percent >= 1 && d.sm_percent <= 100);
  }
  require(c.other.memory_bytes > 0 && c.other.sm_percent >= 1 && c.other.sm_percent <= 100);
  require(c.measure_every >= 1 && c.measure_every <= 1024);
  require(c.region_gid >= -1);
  for (const auto& w : c.warnings) require(!w.empty());
  return 0;
}
