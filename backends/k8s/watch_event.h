// One line of a WATCH stream read as the reflector reads it: an object event (ADDED, MODIFIED,
// DELETED), a BOOKMARK, an ERROR (a Status: 410 means the version expired), or a line that is
// skipped (not JSON, nested too deep, over its memory limit, no type or object, an unknown type).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

#include "backends/k8s/cluster_io.h"

namespace slicelab::k8s {

struct WatchLine {
  enum class Kind { kObject, kBookmark, kError, kSkipped };
  Kind kind = Kind::kSkipped;
  WatchEvent event = WatchEvent::Added;  // kObject
  nlohmann::json object;                 // kObject: the object as sent
  std::string resource_version;          // kObject, kBookmark: the object's, "" when absent
  int64_t code = 0;                      // kError: the Status's code (0 when absent)
  std::string message;                   // kError: its message; kSkipped: why it was skipped
};

// Reads one line with its depth (64 levels) and memory (`max_object_bytes` of parsed form, at
// most 32 bytes per byte of the line) bounded. Never throws for what the line holds.
WatchLine read_watch_line(std::string_view line, size_t max_object_bytes);

}  // namespace slicelab::k8s
