// Reads a recording folder (docs/recording-format.md) for the shadow report: slicelab's
// decisions-NNNNNN.jsonl and, from the recorder's events-NNNNNN.jsonl, where the cluster bound
// each pod; nothing else of the events is kept, so memory follows the pods, not the events.
#pragma once

#include <cstddef>
#include <filesystem>

#include "reports/shadow_comparison.h"

namespace slicelab {

// The longest line either file may hold (the format's limit).
inline constexpr size_t kMaxRecordingLineBytes = size_t{4} << 20;

// True when `dir` holds a recording.json (the report then reads it as a recording).
bool is_recording_folder(const std::filesystem::path& dir);

// Reads every decisions and events segment in order. A last line without its '\n' is a torn
// write and is ignored; a line that is not JSON, longer than kMaxRecordingLineBytes, or has a
// time that is not RFC 3339 throws InputError naming the file and line. Lines of types the
// report does not use are skipped.
ShadowComparisonInput read_shadow_record(const std::filesystem::path& dir);

}  // namespace slicelab
