// The append-only side of a recording: numbered lines written into event segments, each line
// with one write(), fdatasync at least once a second while lines arrive, and rotation to the
// next segment by size or age (docs/recording-format.md). A line that write() accepted is in the
// file: a kill of the process loses nothing written, a crash of the machine at most the last
// second. Closed segments are never opened again.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace slicelab::k8s {

struct RecordingWriterOptions {
  // The format's bounds on --rotate-size.
  static constexpr uint64_t kMinRotateBytes = uint64_t{1} << 20;
  static constexpr uint64_t kMaxRotateBytes = uint64_t{4} << 30;
  uint64_t rotate_bytes = uint64_t{64} << 20;  // a segment that reached this is closed
  std::chrono::seconds rotate_every{3600};     // a segment opened this long ago is closed
  std::chrono::milliseconds sync_every{1000};  // the longest a written line waits for fdatasync
};

// An I/O error of the recording (disk full, folder removed): the recording cannot go on.
class RecordingWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RecordingWriter {
 public:
  using Clock = std::chrono::steady_clock;

  // Appends to segment `segment` of `dir` (created when absent), first cutting it to
  // `keep_bytes` (a torn last line); the next line gets `next_seq`. Throws RecordingWriteError.
  RecordingWriter(std::filesystem::path dir, uint32_t segment, uint64_t keep_bytes,
                  uint64_t next_seq, RecordingWriterOptions options = {});
  ~RecordingWriter();  // close(), errors ignored
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  // Writes `{"seq":N,<fields>}\n` with one write(), rotating first when the segment is due, and
  // syncing when the last sync is sync_every old; returns N. `fields` is the rest of a JSON
  // object's members, without braces. Throws RecordingWriteError (the writer is then closed).
  uint64_t append(std::string_view fields, Clock::time_point now = Clock::now());
  // fdatasync when lines were written since the last sync; a segment past its age is closed and
  // the next one opened. Call it at least once a second.
  void tick(Clock::time_point now = Clock::now());
  // fdatasync and close; later appends throw.
  void close();

  uint64_t next_seq() const { return next_seq_; }
  uint32_t segment() const { return segment_; }
  uint64_t segment_bytes() const { return bytes_; }

 private:
  void open_segment(uint64_t keep_bytes, Clock::time_point now);
  void sync();
  void close_segment();
  void rotate(Clock::time_point now);
  [[noreturn]] void fail(const std::string& what);

  std::filesystem::path dir_;
  RecordingWriterOptions options_;
  uint32_t segment_;
  uint64_t next_seq_;
  int fd_ = -1;
  bool closed_ = false;
  bool dirty_ = false;
  uint64_t bytes_ = 0;
  Clock::time_point opened_, synced_;
  std::string line_;  // reused: the line being written
};

}  // namespace slicelab::k8s
