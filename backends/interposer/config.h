// The interposer's configuration from the environment: its own SLICELAB_* variables and
// HAMi-core's contract, parsed without ever failing the host program (bad values are reported).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::interposer {

constexpr int kMaxDevices = 16;

struct DeviceCaps {
  uint64_t memory_bytes = UINT64_MAX;  // UINT64_MAX: no memory cap
  int sm_percent = 100;                // 100: no compute cap
};

struct Config {
  DeviceCaps devices[kMaxDevices];
  std::string region_path;  // shared accounting region; empty: private to this process
  int measure_every = 32;   // time one launch in N of a known kernel with events
  // Reconcile with NVML's per-process usage before allocations (at most once a second).
  bool nvml_reconcile = false;
  bool fake_clock = false;            // tests only: use the fake driver's (virtual) clock
  bool test_hang_in_lock = false;     // tests only: stop inside the region lock (crash tests)
  std::vector<std::string> warnings;  // one line per bad value, printed once by the caller
};

// "3000m", "2g", "512k", "1t" (binary multiples, either case, optional trailing "b"/"ib") or
// a plain byte count.
std::optional<uint64_t> parse_size(std::string_view text);
// An integer percentage 0..100 (HAMi accepts 0 as "no limit"; so do we).
std::optional<int> parse_percent(std::string_view text);
// Reads the environment through `getenv` (injectable for tests). SLICELAB_* wins over the
// HAMi names; a per-device variable (_<i>) wins over the global one.
Config load_config(const std::function<const char*(const char*)>& getenv);

}  // namespace slicelab::interposer
