// The consistency report a history import writes beside its scenario (consistency.md,
// consistency.json) and its one-line summary (docs/record-replay.md#consistency).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "sim/scenario/replay_consistency.h"

namespace slicelab {

// How many pods the report lists per reason (the counts are always whole).
inline constexpr size_t kConsistencyListedPods = 5;

// "as-recorded: 12 of 14 recorded placements reproduced; 2 not (node-full-gpus 2)".
std::string consistency_summary_line(const ReplayConsistency& c);
// {"format": "slicelab.consistency/1", "recorded", "reproduced", "mismatches", "unbound",
//  "reasons": {REASON: {"count", "pods": [{"pod", "node", "detail"}, ... the first few]}}}
nlohmann::ordered_json consistency_json(const ReplayConsistency& c);
std::string consistency_markdown(const ReplayConsistency& c, const std::string& scenario);

}  // namespace slicelab
