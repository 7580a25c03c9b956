// The interposer's configuration: its caps from the environment (its own SLICELAB_* variables and
// HAMi-core's contract), read without ever failing the host program; a cap it cannot read fails
// closed (Config::fail_closed), never open. The caps file (caps_file.h) reads its caps here too.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::interposer {

constexpr int kMaxDevices = 16;
// The largest memory cap read (1 PiB): a larger one is a typo, refused rather than taken.
constexpr uint64_t kMaxMemoryCap = uint64_t{1} << 50;
// What a process whose caps cannot be read gets: no memory (every allocation refused) and this
// share of compute.
constexpr int kFailClosedPercent = 1;

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
  // The caps file the caps and region came from (caps_file.h), or "" for the environment.
  std::string caps_file;
  // Not empty: a cap could not be read, and this says which, what was expected and what was
  // found. Every device then has a memory cap of 0 (each allocation refused, no memory shown)
  // and kFailClosedPercent of compute, and no region is opened (fail_closed_config).
  std::string fail_closed;
};

// Makes `c` the configuration of a process whose caps could not be read, for reason `why`.
void fail_closed_config(Config& c, const std::string& why);
// The line the interposer prints for a configuration that failed closed: why, and what follows.
std::string fail_closed_message(const Config& c);
// `text` fit for a message: at most 64 characters, anything but printable ASCII as \xNN.
std::string shown(std::string_view text);

// A memory size: a byte count, or a decimal number (fraction allowed: "1.5Gi") with a suffix.
// Kubernetes' quantities: Ki Mi Gi Ti Pi Ei (binary), k M G T P E (decimal); HAMi-core's:
// K m g t (binary; HAMi-core reads k, m, g in either case, where the case decides here: k, M
// and G are Kubernetes' decimal ones, the smaller). A fraction of a byte is dropped. The result
// is 1 byte to kMaxMemoryCap; otherwise nullopt and, with `why`, what was wrong.
std::optional<uint64_t> parse_size(std::string_view text, std::string* why = nullptr);
// An integer percentage 0..100 (HAMi accepts 0 as "no limit"; so do we).
std::optional<int> parse_percent(std::string_view text);
// What parse_size and parse_percent read, for messages: "expected ...".
extern const char* const kSizeExpected;
extern const char* const kPercentExpected;
using Getenv = std::function<const char*(const char*)>;
// Reads the environment through `getenv` (injectable for tests). SLICELAB_* wins over the
// HAMi names; a per-device variable (_<i>) wins over the global one. Every cap variable that is
// set must be readable: one that is not fails the whole configuration closed. `names` lists the
// variables set (to warn about SLICELAB_* names the interposer does not know, with the nearest
// known name, and to find caps of devices beyond the table).
Config load_config(const Getenv& getenv, const std::vector<std::string>& names = {});
// The two halves of load_config. The caps: memory and compute caps, the region, its group and
// NVML reconciliation (what the caps file may hold). The knobs: the other SLICELAB_* settings
// and warnings about unknown SLICELAB_* names.
void read_caps(const Getenv& getenv, const std::vector<std::string>& names, Config& c);
void read_knobs(const Getenv& getenv, const std::vector<std::string>& names, Config& c);
// A group given by number or by name (SLICELAB_REGION_GROUP): its gid, or nullopt.
std::optional<int64_t> lookup_group(std::string_view text);
// The known interposer variable nearest to an unknown SLICELAB_* `name`, or "" when none is
// close (edit distance over 3).
std::string nearest_known_name(std::string_view name);

}  // namespace slicelab::interposer
