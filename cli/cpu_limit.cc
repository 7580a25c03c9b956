#include "cli/cpu_limit.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>

namespace slicelab {
namespace {

// A whole positive-or-negative decimal with nothing else around it but whitespace.
std::optional<int64_t> integer(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<unsigned> cpus(int64_t quota, int64_t period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  const int64_t n = quota / period + (quota % period != 0 ? 1 : 0);
  return static_cast<unsigned>(std::min<int64_t>(n, 1 << 20));
}

// The file's first line; nullopt when it cannot be read (no such controller, no permission).
std::optional<std::string> first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

}  // namespace

std::optional<unsigned> cpus_from_cpu_max(std::string_view text) {
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto period = integer(text.substr(space + 1));
  if (!period) return std::nullopt;
  const std::string_view quota_text = text.substr(0, space);
  if (quota_text == "max") return std::nullopt;
  const auto quota = integer(quota_text);
  return quota ? cpus(*quota, *period) : std::nullopt;
}

std::optional<unsigned> cpus_from_cfs(std::string_view quota, std::string_view period) {
  const auto q = integer(quota), p = integer(period);
  return q && p ? cpus(*q, *p) : std::nullopt;
}

std::optional<unsigned> cgroup_cpu_limit(const std::filesystem::path& cgroup_root) {
  if (const auto max = first_line(cgroup_root / "cpu.max")) return cpus_from_cpu_max(*max);
  for (const char* dir : {"cpu", "cpu,cpuacct"}) {
    const auto quota = first_line(cgroup_root / dir / "cpu.cfs_quota_us");
    const auto period = first_line(cgroup_root / dir / "cpu.cfs_period_us");
    if (quota && period) return cpus_from_cfs(*quota, *period);
  }
  return std::nullopt;
}

int default_jobs(const std::filesystem::path& cgroup_root) {
  unsigned n = std::max(1U, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int in_mask = CPU_COUNT(&set);
    if (in_mask > 0) n = std::min(n, static_cast<unsigned>(in_mask));
  }
  if (const auto limit = cgroup_cpu_limit(cgroup_root)) n = std::min(n, *limit);
  return static_cast<int>(std::max(1U, std::min(n, 1024U)));
}

}  // namespace slicelab
