// The caps file: a container's caps and region, written by the device plugin on the host and
// mounted read-only at a fixed path, so that a process cannot raise its caps through its own
// environment. Its format (versioned, bounded), its writer, and the reader the interposer uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/interposer/config.h"

namespace slicelab::interposer {

// Where the plugin mounts the file in every container it caps.
constexpr const char* kCapsFilePath = "/etc/slicelab/caps";
// The first line of every caps file: the format's name and version.
constexpr std::string_view kCapsFileHeader = "slicelab-interposer-caps 1";
// Limits of the format; the reader refuses more (and never reads past kMaxCapsFileBytes).
constexpr size_t kMaxCapsFileBytes = 8192;
constexpr size_t kMaxCapsLineBytes = 1024;

// What a caps file says. Version 1 holds, after the header line, `NAME=VALUE` lines with the
// names of the environment's caps: SLICELAB_MEMORY_LIMIT[_<i>] (parse_size),
// SLICELAB_SM_LIMIT[_<i>] (parse_percent), SLICELAB_SHARED_REGION (an absolute path),
// SLICELAB_REGION_GROUP and SLICELAB_NVML_RECONCILE; `#` comment lines and blank lines.
// Each name at most once; any other name, byte or line is refused: a name this reader does not
// know could be a cap it would otherwise ignore.
struct CapsFileDevice {
  uint64_t memory_bytes = UINT64_MAX;  // UINT64_MAX: no memory cap
  int sm_percent = 100;                // 100: no compute cap
};
struct CapsFileContents {
  std::vector<CapsFileDevice> devices;  // device i inside the container (at most kMaxDevices)
  std::string region_path;              // "" for none
};

// The file's text for `contents` (plain byte counts; what the reader reads back).
// std::invalid_argument for more than kMaxDevices devices, a memory cap of 0 or above
// kMaxMemoryCap, or a region path that is not an absolute path of printable characters.
std::string caps_file_text(const CapsFileContents& contents);

// The caps a caps file's `text` gives, read as from the file at `path` (for messages, as
// path:line:col). A text that cannot be read fails closed (Config::fail_closed).
Config parse_caps_file(std::string_view text, const std::string& path);

// The caps file's text, read with one bounded read: the path opened without following a link
// (O_NOFOLLOW) and without blocking on a FIFO, and refused unless it is a regular file of at
// most kMaxCapsFileBytes, and, with `read_only_mount`, one on a read-only mount (as the plugin's
// mount is: a file a process wrote itself is not). nullopt and *why when refused.
std::optional<std::string> read_caps_file(const std::string& path, bool read_only_mount,
                                          std::string* why);

// Where a process's caps come from. The file at `fixed` (kCapsFilePath) when anything is there;
// else the file `override_path` names (SLICELAB_CAPS_FILE as the process started: how tests and
// hosts without mounts give a file, no stronger than the environment it comes from); else the
// environment (empty path).
struct CapsSource {
  std::string path;    // "" for the environment
  bool fixed = false;  // the fixed path: it must be on a read-only mount
  std::string error;   // not empty: the fixed path could not be looked at (fail closed)
};
CapsSource locate_caps(const std::string& fixed, const char* override_path);

// The whole configuration: the caps from `source` (the file's, or the environment's through
// `getenv`), the other settings from the environment. With a file, caps and region variables
// in the environment are ignored (one line says so when they differ from the file's).
Config load_caps(const CapsSource& source, const Getenv& getenv,
                 const std::vector<std::string>& names);

}  // namespace slicelab::interposer
