// The recording's header and segment names (recording_folder.h).
#include "backends/k8s/recording_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "workloads/bounded_json.h"
#include "workloads/input_error.h"

namespace slicelab::k8s {
namespace {

namespace fs = std::filesystem;

std::runtime_error folder_io_error(const std::string& what, const fs::path& p) {
  return std::runtime_error(fmt::format("{} {}: {}", what, p.string(), std::strerror(errno)));
}

// Syncs a file or folder by path (a folder's entry list after a rename or create).
void folder_sync_path(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw folder_io_error("cannot open", p);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw folder_io_error("cannot sync", p);
}

std::string folder_string_field(const nlohmann::json& h, const char* key, const fs::path& file) {
  const auto it = h.find(key);
  if (it == h.end()) return "";
  if (!it->is_string())
    throw InputError(fmt::format("{}: \"{}\" is not a string", file.string(), key));
  return it->get<std::string>();
}

}  // namespace

std::string recording_header_text(const RecordingHeader& header) {
  // Written by hand in the format's order (nlohmann's objects sort their keys).
  const auto q = [](const std::string& s) { return nlohmann::json(s).dump(); };
  return fmt::format(
      "{{\"format\": {}, \"started\": {}, \"server\": {}, \"namespace\": {}, \"selector\": {}, "
      "\"slicelab\": {}}}\n",
      q(std::string(kRecordingFormat)), q(header.started), q(header.server),
      q(header.pod_namespace), q(header.selector), q(header.slicelab));
}

std::optional<RecordingHeader> read_recording_header(const fs::path& dir) {
  const fs::path file = dir / kRecordingHeaderName;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  if (!fs::is_regular_file(file, ec))
    throw InputError(fmt::format("{}: not a regular file: not a recording", file.string()));
  const auto size = fs::file_size(file, ec);
  if (ec || size > kMaxRecordingHeaderBytes)
    throw InputError(fmt::format("{}: larger than {} KiB: not a recording header", file.string(),
                                 kMaxRecordingHeaderBytes >> 10));
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json h;
  try {
    h = parse_bounded_json(text.str(), JsonLimits{});
  } catch (const JsonLimitError& e) {
    throw InputError(fmt::format("{}: not JSON: {}", file.string(), e.what()));
  }
  if (!h.is_object() || h.value("format", nlohmann::json()) != kRecordingFormat) {
    throw InputError(fmt::format("{}: not a recording: \"format\" is not \"{}\"", file.string(),
                                 kRecordingFormat));
  }
  RecordingHeader r;
  r.started = folder_string_field(h, "started", file);
  r.server = folder_string_field(h, "server", file);
  r.pod_namespace = folder_string_field(h, "namespace", file);
  r.selector = folder_string_field(h, "selector", file);
  r.slicelab = folder_string_field(h, "slicelab", file);
  return r;
}

void write_recording_header(const fs::path& dir, const RecordingHeader& header) {
  const fs::path file = dir / kRecordingHeaderName;
  const fs::path tmp = dir / (std::string(kRecordingHeaderName) + ".tmp");
  const std::string text = recording_header_text(header);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw folder_io_error("cannot create", tmp);
  const ssize_t n = ::write(fd, text.data(), text.size());
  const bool ok = n == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw folder_io_error("cannot write", tmp);
  if (::rename(tmp.c_str(), file.c_str()) != 0) throw folder_io_error("cannot rename", tmp);
  folder_sync_path(dir, O_RDONLY | O_DIRECTORY);
}

bool ensure_recording_folder(const fs::path& dir, const RecordingHeader& header) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (!ec && fs::exists(st)) {
    if (!fs::is_directory(st))
      throw InputError(fmt::format("{}: not a folder (a recording is a folder)", dir.string()));
    if (read_recording_header(dir)) return false;
    for (const auto& entry : fs::directory_iterator(dir)) {
      // A header a crash left half-written (write_recording_header's temporary) is ours.
      if (entry.path().filename() != std::string(kRecordingHeaderName) + ".tmp")
        throw InputError(fmt::format("{}: holds files but no {}: not a recording folder",
                                     dir.string(), kRecordingHeaderName));
    }
  } else {
    const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec))
      throw InputError(
          fmt::format("{}: its parent folder {} does not exist", dir.string(), parent.string()));
    fs::create_directory(dir);
  }
  write_recording_header(dir, header);
  return true;
}

fs::path recording_segment_path(const fs::path& dir, uint32_t index) {
  return dir / fmt::format("events-{:06}.jsonl", index);
}

std::vector<RecordingSegment> list_recording_segments(const fs::path& dir) {
  std::vector<RecordingSegment> segments;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("events-") || !name.ends_with(".jsonl")) continue;
    const std::string digits = name.substr(7, name.size() - 7 - 6);
    const bool six_digits =
        digits.size() == 6 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    const uint32_t index = six_digits ? static_cast<uint32_t>(std::stoul(digits)) : 0;
    if (index == 0)
      throw InputError(
          fmt::format("{}: not a segment name (events-000001.jsonl .. "
                      "events-999999.jsonl): remove or rename it",
                      e.path().string()));
    if (!e.is_regular_file())
      throw InputError(fmt::format("{}: a segment that is not a regular file", e.path().string()));
    segments.push_back({index, e.path()});
  }
  std::sort(segments.begin(), segments.end(),
            [](const auto& a, const auto& b) { return a.index < b.index; });
  return segments;
}

std::string recording_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ms % 1000);
}

}  // namespace slicelab::k8s
