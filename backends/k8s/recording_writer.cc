// RecordingWriter (recording_writer.h).
#include "backends/k8s/recording_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "backends/k8s/recording_folder.h"

namespace slicelab::k8s {

RecordingWriter::RecordingWriter(std::filesystem::path dir, uint32_t segment, uint64_t keep_bytes,
                                 uint64_t next_seq, RecordingWriterOptions options)
    : dir_(std::move(dir)), options_(options), segment_(segment), next_seq_(next_seq) {
  if (segment_ == 0 || segment_ > kMaxRecordingSegments)
    throw RecordingWriteError(
        fmt::format("segment {} is outside 1..{}", segment_, kMaxRecordingSegments));
  open_segment(keep_bytes, Clock::now());
}

RecordingWriter::~RecordingWriter() {
  try {
    close();
  } catch (
      const RecordingWriteError&) {  // NOLINT(bugprone-empty-catch): a destructor cannot report
  }
}

void RecordingWriter::fail(const std::string& what) {
  const std::string message = fmt::format(
      "{} {}: {}", what, recording_segment_path(dir_, segment_).string(), std::strerror(errno));
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  closed_ = true;
  throw RecordingWriteError(message);
}

void RecordingWriter::open_segment(uint64_t keep_bytes, Clock::time_point now) {
  const std::filesystem::path path = recording_segment_path(dir_, segment_);
  // O_NOFOLLOW: a link planted in the folder is not followed to a file elsewhere.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) fail("cannot open");
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  if (size < 0) fail("cannot seek");
  if (static_cast<uint64_t>(size) > keep_bytes) {
    // The torn last line of a killed machine: cut before appending, so that the next line
    // starts on a line of its own.
    if (::ftruncate(fd_, static_cast<off_t>(keep_bytes)) != 0) fail("cannot truncate");
    if (::fdatasync(fd_) != 0) fail("cannot sync");
  }
  if (::lseek(fd_, static_cast<off_t>(keep_bytes), SEEK_SET) < 0) fail("cannot seek");
  bytes_ = keep_bytes;
  opened_ = synced_ = now;
  dirty_ = false;
}

void RecordingWriter::sync() {
  if (fd_ >= 0 && dirty_) {
    if (::fdatasync(fd_) != 0) fail("cannot sync");
  }
  dirty_ = false;
}

void RecordingWriter::close_segment() {
  sync();
  if (fd_ >= 0 && ::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close");
  }
  fd_ = -1;
}

uint64_t RecordingWriter::append(std::string_view fields, Clock::time_point now) {
  if (closed_) throw RecordingWriteError("the recording is closed");
  if (bytes_ > 0 && (bytes_ >= options_.rotate_bytes || now - opened_ >= options_.rotate_every))
    rotate(now);
  line_.clear();
  fmt::format_to(std::back_inserter(line_), "{{\"seq\":{},", next_seq_);
  line_.append(fields);
  line_.append("}\n");
  size_t done = 0;
  while (done < line_.size()) {
    const ssize_t n = ::write(fd_, line_.data() + done, line_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      // A part written before the error is a torn line: cut it, so the segment stays whole.
      if (done > 0 && ::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) fail("cannot truncate");
      fail("cannot write");
    }
    done += static_cast<size_t>(n);
  }
  bytes_ += line_.size();
  dirty_ = true;
  if (now - synced_ >= options_.sync_every) {
    sync();
    synced_ = now;
  }
  return next_seq_++;
}

void RecordingWriter::tick(Clock::time_point now) {
  if (closed_ || fd_ < 0) return;
  sync();
  synced_ = now;
  if (bytes_ > 0 && now - opened_ >= options_.rotate_every) rotate(now);
}

void RecordingWriter::rotate(Clock::time_point now) {
  if (segment_ >= kMaxRecordingSegments) {
    closed_ = true;
    close_segment();
    throw RecordingWriteError(fmt::format("{}: {} segments written: the format's last",
                                          dir_.string(), kMaxRecordingSegments));
  }
  // The next segment is opened at once, so that the last segment in the folder is always the
  // one being written: a resume appends to it, never to one closed by rotation.
  close_segment();
  ++segment_;
  open_segment(0, now);
}

void RecordingWriter::close() {
  if (closed_) return;
  closed_ = true;
  close_segment();
}

}  // namespace slicelab::k8s
