// Opening a recording folder for `slicelab record`: a new folder gets its header; a recording
// already there is read back, segment by segment and line by line (bounded), to find where it
// goes on (the next seq, the last segment without its torn last line) and to rebuild the
// deduplication table of the objects live at its end (docs/recording-format.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "backends/k8s/recording_dedup.h"
#include "backends/k8s/recording_folder.h"

namespace slicelab::k8s {

// Where a recording goes on.
struct RecordingResume {
  bool resumed = false;     // the folder held a recording
  uint32_t segment = 1;     // the segment to append to (the last one, or 1)
  uint64_t keep_bytes = 0;  // its length up to its last '\n': a torn line after it is cut
  uint64_t next_seq = 1;
  uint64_t events = 0;  // lines read back
};

// Reads segment lines in order, as a resume does: checks that seq runs 1, 2, 3, ... and keeps
// `dedup` as the recorder left it (ADDED, MODIFIED, LISTED record a state; DELETED, GONE end the
// object). The fuzz target drives it with arbitrary lines.
class RecordingLineReplay {
 public:
  explicit RecordingLineReplay(RecordingDedup& dedup) : dedup_(dedup) {}
  // One complete line (without '\n'); `where` ("FILE:LINE") prefixes the InputError it throws
  // for a line that is not the format's, out of sequence, or past the dedup table's limits.
  void line(std::string_view text, const std::string& where);
  uint64_t next_seq() const { return next_seq_; }
  uint64_t lines() const { return lines_; }

 private:
  RecordingDedup& dedup_;
  uint64_t next_seq_ = 1;
  uint64_t lines_ = 0;
};

// Opens DIR for recording with `header`: creates DIR (its parent must exist) and its header when
// DIR is absent or an empty folder; resumes when DIR holds a recording of the same namespace and
// selector. Refuses (InputError) a folder that is not a recording, a recording of another
// namespace or selector, or one whose segments do not read back. Never changes a segment (the
// writer cuts the torn line).
RecordingResume open_recording_folder(const std::filesystem::path& dir,
                                      const RecordingHeader& header, RecordingDedup& dedup);

}  // namespace slicelab::k8s
