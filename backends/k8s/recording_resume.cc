// open_recording_folder and RecordingLineReplay (recording_resume.h).
#include "backends/k8s/recording_resume.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "backends/k8s/recording_line.h"
#include "workloads/input_error.h"

namespace slicelab::k8s {
namespace {

namespace fs = std::filesystem;

struct ResumeScan {
  uint64_t complete_bytes = 0;  // up to and with the last '\n'
  uint64_t torn_bytes = 0;      // after it
};

// Feeds each complete line of `file` to `replay`, reading 1 MiB at a time and holding at most
// one line (kMaxRecordingLineBytes) besides.
ResumeScan resume_scan_file(const fs::path& file, RecordingLineReplay& replay) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    throw InputError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  ResumeScan scan;
  std::vector<char> chunk(size_t{1} << 20);
  std::string pending;
  uint64_t line_no = 0;
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw InputError(fmt::format("{}: cannot read: {}", file.string(), std::strerror(err)));
    }
    if (n == 0) break;
    size_t from = 0;
    const auto size = static_cast<size_t>(n);
    while (from < size) {
      const void* nl = std::memchr(chunk.data() + from, '\n', size - from);
      const size_t end =
          nl ? static_cast<size_t>(static_cast<const char*>(nl) - chunk.data()) : size;
      if (pending.size() + (end - from) > kMaxRecordingLineBytes) {
        ::close(fd);
        throw InputError(fmt::format("{}:{}: a line longer than the format's {} MiB", file.string(),
                                     line_no + 1, kMaxRecordingLineBytes >> 20));
      }
      pending.append(chunk.data() + from, end - from);
      if (nl == nullptr) break;
      ++line_no;
      scan.complete_bytes += pending.size() + 1;
      try {
        replay.line(pending, fmt::format("{}:{}", file.string(), line_no));
      } catch (...) {
        ::close(fd);
        throw;
      }
      pending.clear();
      from = end + 1;
    }
  }
  ::close(fd);
  scan.torn_bytes = pending.size();
  return scan;
}

bool resume_folder_is_empty(const fs::path& dir) {
  return fs::directory_iterator(dir) == fs::directory_iterator();
}

RecordingLine resume_parse_line(std::string_view text, const std::string& where) {
  try {
    return parse_recording_line(text);
  } catch (const RecordingLineError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace

void RecordingLineReplay::line(std::string_view text, const std::string& where) {
  RecordingLine l = resume_parse_line(text, where);
  if (l.seq != next_seq_) {
    throw InputError(
        fmt::format("{}: seq {} where {} was expected: the recording has a gap or "
                    "was edited",
                    where, l.seq, next_seq_));
  }
  ++next_seq_;
  ++lines_;
  try {
    switch (l.type) {
      case RecordingLine::Type::kAdded:
      case RecordingLine::Type::kModified:
      case RecordingLine::Type::kListed:
        dedup_.put(l.kind, l.uid, std::move(l.rv), l.object.dump(), 0);
        break;
      case RecordingLine::Type::kDeleted:
      case RecordingLine::Type::kGone:
        dedup_.erase(l.kind, l.uid);
        break;
      case RecordingLine::Type::kStart:
      case RecordingLine::Type::kRelist:
        break;
    }
  } catch (const DedupLimitError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
}

RecordingResume open_recording_folder(const fs::path& dir, const RecordingHeader& header,
                                      RecordingDedup& dedup) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  const bool exists = !ec && fs::exists(st);
  if (exists && !fs::is_directory(st))
    throw InputError(fmt::format("{}: not a folder (a recording is a folder)", dir.string()));
  if (!exists || resume_folder_is_empty(dir)) {
    if (!exists) {
      const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
      if (!fs::is_directory(parent, ec))
        throw InputError(
            fmt::format("{}: its parent folder {} does not exist", dir.string(), parent.string()));
      fs::create_directory(dir);
    }
    write_recording_header(dir, header);
    return RecordingResume{};
  }
  const std::optional<RecordingHeader> found = read_recording_header(dir);
  if (!found) {
    throw InputError(fmt::format(
        "{}: not a recording (no {}): slicelab record writes only into a new or empty folder or "
        "a recording it made",
        dir.string(), kRecordingHeaderName));
  }
  if (found->pod_namespace != header.pod_namespace || found->selector != header.selector) {
    throw InputError(fmt::format(
        "{}: a recording of namespace '{}' and selector '{}', not '{}' and '{}': resume it with "
        "the same --namespace and --selector, or record into another folder",
        dir.string(), found->pod_namespace, found->selector, header.pod_namespace,
        header.selector));
  }
  RecordingResume r;
  r.resumed = true;
  RecordingLineReplay replay(dedup);
  const std::vector<RecordingSegment> segments = list_recording_segments(dir);
  for (const RecordingSegment& s : segments) {
    // A torn line in a closed segment stays (readers ignore it; a closed segment is never
    // rewritten); only the last one's is cut before appending.
    const ResumeScan scan = resume_scan_file(s.path, replay);
    r.segment = s.index;
    r.keep_bytes = scan.complete_bytes;
  }
  r.next_seq = replay.next_seq();
  r.events = replay.lines();
  return r;
}

}  // namespace slicelab::k8s
