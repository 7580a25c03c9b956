// A recording folder's header (docs/recording-format.md): `serve extender --shadow --record DIR`
// creates the folder and its recording.json when absent, and otherwise checks that it is one.
#pragma once

#include <filesystem>
#include <string>

namespace slicelab::k8s {

inline constexpr const char* kRecordingFormat = "slicelab-recording/1";

struct RecordingHeader {
  std::string started;        // RFC 3339, UTC, milliseconds
  std::string server;         // the API server's URL; empty for an offline source
  std::string pod_namespace;  // empty: all namespaces
  std::string selector;
  std::string slicelab;  // the writer's version
};

// Creates `dir` (its parent must exist) and writes its recording.json atomically (a temporary
// file, synced, renamed) when it has none; returns true then. A folder that already holds a
// recording.json of this format is left as it is (false). Refuses, with std::runtime_error
// naming the path, a folder with another format, an unreadable header, or other files but no
// header (it never writes into a folder that is not a recording).
bool ensure_recording_folder(const std::filesystem::path& dir, const RecordingHeader& header);

}  // namespace slicelab::k8s
