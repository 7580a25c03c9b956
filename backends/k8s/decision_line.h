// The lines of a shadow extender's decisions-NNNNNN.jsonl (docs/recording-format.md#decisions),
// written into a caller's fixed buffer so that the request path never allocates for them.
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "backends/k8s/shadow_decision_sink.h"

namespace slicelab::k8s {

// Shadow mode's running figures at one moment, as a `FIGURES` line carries them.
struct DecisionFiguresLine {
  uint64_t decisions = 0, same_node = 0, different_node = 0, pending_placeable = 0;
  double fragmented_gpus_actual = 0, fragmented_gpus_slicelab = 0;
  uint64_t dropped = 0;  // decision lines the log has dropped so far (queue full, too long)
};

// "2026-11-30T12:00:01.250Z": RFC 3339, UTC, milliseconds, as the recording's `at`.
std::string format_recording_time(std::chrono::system_clock::time_point t);

// Writes one `DECISION` line, `\n` included, into `out`; returns its length, or 0 when it does
// not fit (nothing usable is left in `out` then). Strings are JSON-escaped (a hostile pod name
// cannot break the line).
size_t format_decision_line(std::span<char> out, std::chrono::system_clock::time_point at,
                            const ShadowDecision& d);
std::string format_figures_line(std::chrono::system_clock::time_point at,
                                const DecisionFiguresLine& f);
std::string format_start_line(std::chrono::system_clock::time_point at, bool resumed,
                              std::string_view policy);

}  // namespace slicelab::k8s
