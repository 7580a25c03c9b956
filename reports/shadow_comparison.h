// Shadow mode's record read back: what the cluster did against what slicelab would have done
// over a recording's window (`slicelab report DIR` on a folder of `serve extender --shadow
// --record DIR`): agreement, placeable pods left pending, fragmentation on both sides.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace slicelab {

// slicelab's decision for one pod (a DECISION line; the latest one per pod counts).
struct ShadowDecisionRecord {
  std::string pod;  // "<namespace>/<name>"
  std::string uid;
  std::string node;
  double at_s = 0;  // seconds since the epoch
};

// Where the cluster put a pod: the first recorded spec.nodeName (an event line of the recording).
struct ActualPlacement {
  std::string pod;
  std::string uid;
  std::string node;
  double at_s = 0;  // when the recorder saw it bound
};

// Shadow mode's running figures at one moment (a FIGURES line).
struct ShadowFiguresRecord {
  double at_s = 0;
  double fragmented_gpus_actual = 0;
  double fragmented_gpus_slicelab = 0;
  uint64_t dropped = 0;
  bool after_start = false;  // the first FIGURES line after a START (the counters restarted)
};

struct ShadowComparisonInput {
  std::vector<ShadowDecisionRecord> decisions;  // in the order written
  std::vector<ActualPlacement> placements;      // in the order recorded
  std::vector<ShadowFiguresRecord> figures;     // in the order written
  std::vector<double> starts_s;                 // the extender's START lines
  std::optional<double> first_s, last_s;        // the window: earliest and latest line seen
  std::string policy;                           // the last START line's policy
};

struct FragmentationFigures {
  double mean = 0;  // over the FIGURES lines (written at a fixed interval)
  double last = 0;
};

struct ShadowComparison {
  std::string policy;
  double from_s = 0, to_s = 0;
  uint64_t decided = 0;     // pods slicelab placed (each pod once)
  uint64_t bound = 0;       // of those, pods the cluster bound after slicelab's decision
  uint64_t same_node = 0;   // on slicelab's node
  uint64_t other_node = 0;  // elsewhere
  // Pods slicelab placed that the cluster left pending longer than `pending_after_s` after the
  // decision: bound late, or still pending at the window's end.
  double pending_after_s = 0;
  uint64_t placeable_pending = 0;
  uint64_t still_pending = 0;  // of those, never bound within the window
  std::optional<FragmentationFigures> fragmented_actual, fragmented_slicelab;
  uint64_t dropped = 0;  // decision lines the log dropped (queue full): pods missing here
  uint64_t starts = 0;   // the extender's starts within the window
  std::optional<double> agreement() const {
    if (bound == 0) return std::nullopt;
    return static_cast<double>(same_node) / static_cast<double>(bound);
  }
};

// Pods are matched by UID (by "<namespace>/<name>" where a line has no UID). A pod bound before
// slicelab decided it (the extender saw it late) is not compared.
ShadowComparison compare_shadow(const ShadowComparisonInput& input, double pending_after_s);

nlohmann::ordered_json shadow_comparison_json(const ShadowComparison& c);
// A few lines for the terminal.
std::string shadow_comparison_text(const ShadowComparison& c);

}  // namespace slicelab
