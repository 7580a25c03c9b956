// The mean over seeds of one policy's run summaries (slicelab.seeds/1), every figure combined as
// its row of the run-metrics table says (sim/metrics/run_metrics.h).
#pragma once

#include <span>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Per figure, its SeedMean over `seeds` (one summary per seed, same policy). Never-placed reasons
// become per-seed means, rounded; per-model usage is not averaged (left empty); per-class figures
// are, per class name, over the seeds with pods of that class.
RunSummary seed_mean(std::span<const RunSummary* const> seeds);

}  // namespace slicelab
