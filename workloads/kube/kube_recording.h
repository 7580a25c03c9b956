// A recording folder of `slicelab record` (docs/recording-format.md) read back as the nodes it
// saw and the life of each pod, folded into the same KubeNode/KubePod that exports give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/kube/kube_objects.h"

namespace slicelab {

// The reader's limits (docs/record-replay.md#limits): a line as the format bounds it, and what
// it keeps at once: every node and pod ever seen (the replay needs each pod's whole life).
inline constexpr uint64_t kMaxRecordingLineBytes = 4 * kMiB;
inline constexpr uint64_t kMaxRecordingHeaderBytes = uint64_t{64} * 1024;
inline constexpr size_t kMaxRecordingSegments = 100'000;
inline constexpr size_t kMaxRecordingPods = 1'000'000;
inline constexpr size_t kMaxRecordingNodes = 100'000;

struct KubeRecording {
  double started_s = 0;  // the first START's `at` (the header's `started` without one)
  double ended_s = 0;    // the last event's `at` (started_s when there is none)
  // Every node seen, in its last recorded state (nodes that left are kept: see the notes of
  // `import recording`); every pod, as a KubePod whose
  //   node_name  is the first recorded spec.nodeName (the scheduler's choice),
  //   finished_s is its end: the latest finishedAt of a Succeeded/Failed pod, else the DELETED
  //              or GONE event's `at`; nullopt while it still ran at the end,
  // and whose other fields are its last recorded state. In order of first appearance.
  KubeObjects objects;
  size_t segments = 0;
  size_t events = 0;          // object events read (ADDED, MODIFIED, DELETED, LISTED, GONE)
  size_t duplicates = 0;      // events whose uid and resourceVersion were already read: skipped
  size_t torn_lines = 0;      // a segment's last line without its '\n': ignored
  size_t restarts = 0;        // START lines with resumed: true
  size_t missing_events = 0;  // seq numbers skipped (events lost: see warnings)
  size_t nodes_joined = 0;    // nodes first seen in an ADDED event (after the first list)
  size_t nodes_left = 0;      // nodes with a DELETED or GONE event
  std::vector<std::string> warnings;  // one sentence each: a seq gap, a torn line
};

// Reads DIR/recording.json and DIR/events-*.jsonl in name order. Throws InputError
// "FILE:LINE: ..." for a folder that is not a recording (format), a line longer than
// kMaxRecordingLineBytes, a line that is not JSON or lacks a field, a seq that does not grow,
// an object that is not a valid Pod/Node, or more segments, pods or nodes than the limits.
// A gap in seq is not refused: it is counted and warned about (events were lost, so the replay
// may differ from what the cluster did; the consistency report shows where).
KubeRecording read_kube_recording(const std::string& dir);

}  // namespace slicelab
