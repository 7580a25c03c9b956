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
  // What the global variables (and any per-device variable beyond the table) give devices
  // kMaxDevices and above: a memory cap there refuses their allocations (they are not counted).
  DeviceCaps other;
  std::string region_path;  // shared accounting region; empty: private to this process
  // SLICELAB_REGION_GROUP: the group of a container's processes that run under several uids;
  // the region is then created 0660 for that group, and a region of that group is accepted.
  int64_t region_gid = -1;  // -1: none (the region is created 0600 and must be the caller's)
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
// HAMi names; a per-device variable (_<i>) wins over the global one; a value that cannot be
// read falls through to the next variable in that order (with a warning), so a typo in ours
// never discards a valid HAMi value. `names` lists the variables set (to warn about SLICELAB_*
// names the interposer does not know, with the nearest known name).
Config load_config(const std::function<const char*(const char*)>& getenv,
                   const std::vector<std::string>& names = {});
// A group given by number or by name (SLICELAB_REGION_GROUP): its gid, or nullopt.
std::optional<int64_t> lookup_group(std::string_view text);
// The known interposer variable nearest to an unknown SLICELAB_* `name`, or "" when none is
// close (edit distance over 3).
std::string nearest_known_name(std::string_view name);

}  // namespace slicelab::interposer
