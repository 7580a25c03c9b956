// One line of a recording's segment (docs/recording-format.md, "Events") read back: what the
// recorder needs to resume (seq, the event's type, kind, uid, rv and object). Lines come from a
// file that may have been damaged or edited, so the read is bounded and names what is wrong.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "backends/k8s/cluster_io.h"

namespace slicelab::k8s {

// The longest line a recording holds (the format's limit): a longer object is written trimmed
// to its identity, and a reader refuses a longer line.
inline constexpr size_t kMaxRecordingLineBytes = size_t{4} << 20;

struct RecordingLine {
  enum class Type { kStart, kRelist, kAdded, kModified, kDeleted, kListed, kGone };
  uint64_t seq = 0;
  Type type = Type::kStart;
  WatchKind kind = WatchKind::Pod;  // not for kStart
  std::string uid, rv;              // object events only
  nlohmann::json object;            // object events only: the trimmed object
};

// A line that is not one the format allows; the message says what is wrong (the caller adds the
// file and line).
class RecordingLineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads one line (without its '\n'): JSON nested at most 64 deep, at most kMaxRecordingLineBytes,
// with a positive seq, a known type, and for object events a kind Pod or Node, string uid and rv
// and an object. Throws RecordingLineError.
RecordingLine parse_recording_line(std::string_view text);

// The event types as the format spells them.
std::string_view recording_type_name(RecordingLine::Type type);

}  // namespace slicelab::k8s
