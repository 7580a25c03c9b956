// Reading a whole input file into memory, with the one message every reader gives when it
// cannot ("PATH: cannot open file", "…: it is a folder", "…: not a regular file (a FIFO)").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace slicelab {

// The largest file each kind of input may be (docs/scenario-format.md, "Limits"). They keep a
// mistaken argument (a disk image, a log) from filling memory: a parsed YAML node takes tens
// of times its text, so YAML gets the smallest limits; CSV is read as rows and may be large.
inline constexpr uint64_t kMiB = uint64_t{1} << 20;
inline constexpr uint64_t kMaxConfigYamlBytes = 16 * kMiB;  // scenario, plan, sweep, mig-parted
inline constexpr uint64_t kMaxTraceYamlBytes = 64 * kMiB;   // a native YAML trace
inline constexpr uint64_t kMaxCsvBytes = 1024 * kMiB;       // openb, generic and results CSV
inline constexpr uint64_t kMaxJsonBytes = 256 * kMiB;       // summary.json, sweep.json, plan.json
inline constexpr uint64_t kMaxTextBytes = 16 * kMiB;        // anything else (nvidia-smi topo -m)

// The file's bytes. Throws InputError when it is missing, unreadable, not a regular file (a
// folder, a FIFO, a device such as /dev/zero, a socket) or larger than `max_bytes`. The size is
// checked on the open file and again while reading, so a file that grows cannot pass it.
std::string read_text_file(const std::string& path, uint64_t max_bytes = kMaxTextBytes);

// Throws InputError "PATH:LINE:COL: invalid UTF-8 (byte 0xNN)" at the first byte sequence that
// is not UTF-8 (overlong forms, surrogates and code points above U+10FFFF included): names that
// pass here can be written to JSON and HTML later without failing there.
void check_utf8(std::string_view text, const std::string& path);

// std::filesystem's "filesystem error: status: File name too long [PATH]" in the shape of every
// other message: "PATH: status: File name too long".
std::string filesystem_error_message(const std::filesystem::filesystem_error& e);

}  // namespace slicelab
