// Which way is better for a figure of the run-metrics table: `slicelab diff`'s verdicts
// (better / worse) and `--fail-if worse:METRIC` read it.
#pragma once

#include <optional>
#include <string_view>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

enum class Better : uint8_t { kHigher, kLower };

// The direction of the row (by its summary.json key, or the column head of a derived row);
// none for figures that only describe a run (counts of samples, the window, utilisation,
// allocation: more allocation can mean more work done or more waste), where a change is a change.
std::optional<Better> better_direction(const RunMetric& m);

// "higher" / "lower".
std::string_view better_name(Better b);

}  // namespace slicelab
