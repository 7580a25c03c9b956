// One figure of the run-metrics table over a policy's seeds: its mean, 95% confidence interval
// and seed range (sim/metrics/seed_statistics.h), as summary.json's "uncertainty" block holds it.
#pragma once

#include <optional>
#include <span>

#include "sim/metrics/run_metrics.h"
#include "sim/metrics/seed_statistics.h"

namespace slicelab {

// Over the seeds holding a value of row `m` (summaries in seed order); none when no seed does or
// the row is a block.
std::optional<Estimate> metric_estimate(const RunMetric& m,
                                        std::span<const RunSummary* const> seeds);

}  // namespace slicelab
