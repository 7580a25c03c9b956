#include "sim/parallel/cpu_limit.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

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

namespace {

// The cgroup path of the v2 hierarchy ("0::/a/b") or of v1's cpu controller ("4:cpu,cpuacct:/a")
// in /proc/self/cgroup's text; "" when absent.
std::string cgroup_path(std::string_view text, bool v2) {
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    bool match = v2 ? line.substr(0, a) == "0" && controllers.empty() : false;
    for (size_t at = 0; !v2 && at <= controllers.size();) {
      const size_t comma = std::min(controllers.find(',', at), controllers.size());
      match = match || controllers.substr(at, comma - at) == "cpu";
      at = comma + 1;
    }
    if (match) return line.substr(b + 1);
  }
  return "";
}

// `dir` relative to a cgroup mount: the process's cgroup, then each parent up to the mount.
std::vector<std::filesystem::path> self_and_ancestors(const std::filesystem::path& mount,
                                                      const std::string& path) {
  std::vector<std::filesystem::path> out;
  std::filesystem::path rel = std::filesystem::path(path).relative_path().lexically_normal();
  if (rel.string().starts_with("..")) rel.clear();  // never outside the mount
  for (;;) {
    out.push_back(rel.empty() || rel == "." ? mount : mount / rel);
    if (rel.empty() || rel == "." || !rel.has_parent_path()) break;
    rel = rel.parent_path();
  }
  if (out.back() != mount) out.push_back(mount);
  return out;
}

std::optional<unsigned> smaller(std::optional<unsigned> a, std::optional<unsigned> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace

std::optional<unsigned> cgroup_cpu_limit(const std::filesystem::path& cgroup_root,
                                         std::string_view proc_self_cgroup) {
  std::optional<unsigned> limit;
  bool v2 = false;
  for (const auto& dir : self_and_ancestors(cgroup_root, cgroup_path(proc_self_cgroup, true)))
    if (const auto max = first_line(dir / "cpu.max")) {
      v2 = true;
      limit = smaller(limit, cpus_from_cpu_max(*max));
    }
  if (v2) return limit;
  for (const char* mount : {"cpu", "cpu,cpuacct"}) {
    for (const auto& dir :
         self_and_ancestors(cgroup_root / mount, cgroup_path(proc_self_cgroup, false))) {
      const auto quota = first_line(dir / "cpu.cfs_quota_us");
      const auto period = first_line(dir / "cpu.cfs_period_us");
      if (quota && period) limit = smaller(limit, cpus_from_cfs(*quota, *period));
    }
    if (limit) return limit;
  }
  return limit;
}

int default_jobs(const std::filesystem::path& cgroup_root,
                 const std::filesystem::path& proc_self_cgroup) {
  unsigned n = std::max(1U, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int in_mask = CPU_COUNT(&set);
    if (in_mask > 0) n = std::min(n, static_cast<unsigned>(in_mask));
  }
  std::ifstream in(proc_self_cgroup);
  std::ostringstream text;
  text << in.rdbuf();
  if (const auto limit = cgroup_cpu_limit(cgroup_root, text.str())) n = std::min(n, *limit);
  return static_cast<int>(std::max(1U, std::min(n, 1024U)));
}

}  // namespace slicelab
