// A recording's folder (docs/recording-format.md, "The folder"): its header recording.json,
// written once and atomically, and the names and order of its event segments. Whether a folder
// is a recording is decided here, so that nothing writes into one that is not.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::k8s {

inline constexpr std::string_view kRecordingFormat = "slicelab-recording/1";
inline constexpr std::string_view kRecordingHeaderName = "recording.json";
// events-000001.jsonl .. events-999999.jsonl: six digits, so that names sort as numbers.
inline constexpr uint32_t kMaxRecordingSegments = 999'999;
// The header is a few hundred bytes; a larger recording.json is not one of ours.
inline constexpr size_t kMaxRecordingHeaderBytes = size_t{64} << 10;

struct RecordingHeader {
  std::string started;        // RFC 3339 UTC with milliseconds
  std::string server;         // the API server's URL
  std::string pod_namespace;  // "" for all namespaces
  std::string selector;       // the pods' label selector, "" for none
  std::string slicelab;       // the recorder's version
};

// The header's JSON text (one object, a newline after it).
std::string recording_header_text(const RecordingHeader& header);

// DIR/recording.json read and checked: nullopt when the file is absent; throws InputError
// naming the file when it is there but is not a slicelab-recording/1 header.
std::optional<RecordingHeader> read_recording_header(const std::filesystem::path& dir);

// Writes DIR/recording.json atomically (a temporary file synced, renamed over, the folder
// synced). Throws std::runtime_error naming the file on an I/O error.
void write_recording_header(const std::filesystem::path& dir, const RecordingHeader& header);

// For a writer beside the recorder (`serve extender --shadow --record DIR` without an API server,
// or before the recorder opened DIR): creates DIR (its parent must exist) and its header when
// DIR is absent or empty, and returns true; returns false when DIR already holds a recording's
// header (left as it is, segments unread). Refuses (InputError) a path that is not a folder and
// a folder holding files but no header: nothing writes into a folder that is not a recording.
bool ensure_recording_folder(const std::filesystem::path& dir, const RecordingHeader& header);

// DIR/events-NNNNNN.jsonl.
std::filesystem::path recording_segment_path(const std::filesystem::path& dir, uint32_t index);

struct RecordingSegment {
  uint32_t index = 0;
  std::filesystem::path path;
};

// The segments in DIR, in order. Other files are left alone (decisions-*.jsonl, a user's notes);
// a name that looks like a segment but is not one (events-1.jsonl, events-0000001.jsonl) is
// refused with InputError, since a reader would not know where it goes.
std::vector<RecordingSegment> list_recording_segments(const std::filesystem::path& dir);

// The current UTC time as RFC 3339 with milliseconds ("2026-11-30T12:00:01.250Z").
std::string recording_timestamp();

}  // namespace slicelab::k8s
