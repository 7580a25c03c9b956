#include "cli/interposer_stats.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "backends/interposer/shared_region.h"

namespace slicelab {

namespace {

std::string bytes(uint64_t b) {
  if (b == UINT64_MAX) return "none";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace

InterposerCommand::InterposerCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("interposer", "Inspect the LD_PRELOAD interposer's shared state");
  cmd_->require_subcommand(1);
  stats_ = cmd_->add_subcommand(
      "stats", "Per-device caps, usage, launches and throttled time of one container's processes");
  stats_
      ->add_option("region", region_,
                   "The region file (SLICELAB_SHARED_REGION / CUDA_DEVICE_MEMORY_SHARED_CACHE)")
      ->required();
}

int InterposerCommand::run() const {
  std::fputs(interposer_stats_report(region_).c_str(), stdout);
  return 0;
}

std::string interposer_stats_report(const std::string& path) {
  using namespace interposer;
  std::string error;
  std::unique_ptr<SharedRegion> region(SharedRegion::open_readonly(path, &error));
  if (!region) throw std::runtime_error(error);
  const RegionLayout& r = region->layout();
  std::string out = fmt::format("region {}\n", path);
  out += fmt::format("{:<7}{:>12}{:>12}{:>12}{:>8}{:>11}{:>14}\n", "device", "memory cap", "in use",
                     "reserved", "SM cap", "launches", "throttled s");
  for (int d = 0; d < kMaxDevices; ++d) {
    uint64_t launches = 0, throttled = 0;
    for (const auto& s : r.slots) {
      if (s.pid.load() == 0) continue;
      launches += s.launches[d].load();
      throttled += s.throttled_ns[d].load();
    }
    const RegionDevice& dev = r.devices[d];
    const uint64_t reserved = dev.reserved.load(),
                   committed = dev.committed.load() + dev.external.load();
    const uint32_t sm = dev.sm_percent.load();
    // Devices no process has used are left out (a global cap applies to all 16 slots), except
    // device 0, so that an idle container still shows its caps.
    if (d > 0 && reserved + committed == 0 && launches == 0) continue;
    out += fmt::format("{:<7}{:>12}{:>12}{:>12}{:>8}{:>11}{:>14.3f}\n", d, bytes(dev.cap.load()),
                       bytes(reserved + committed), bytes(reserved),
                       sm >= 100 ? std::string("none") : fmt::format("{}%", sm), launches,
                       static_cast<double>(throttled) / 1e9);
  }
  out += "processes:\n";
  int n = 0;
  for (const auto& s : r.slots) {
    const int32_t pid = s.pid.load();
    if (pid == 0) continue;
    ++n;
    const bool gone = process_gone(pid, s.start_time.load());
    out += fmt::format("  pid {}{}:", pid, gone ? " (dead; reclaimed at the next allocation)" : "");
    for (int d = 0; d < kMaxDevices; ++d) {
      const uint64_t held = s.committed[d].load() + s.reserved[d].load();
      const uint64_t launches = s.launches[d].load();
      if (held == 0 && launches == 0) continue;
      out += fmt::format(" device {} {} in use, {} launches, {:.3f} s throttled;", d, bytes(held),
                         launches, static_cast<double>(s.throttled_ns[d].load()) / 1e9);
    }
    out += "\n";
  }
  if (n == 0) out += "  none\n";
  return out;
}

}  // namespace slicelab
