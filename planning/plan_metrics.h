// The run metrics a plan target or a sweep column can name (queue_delay_p99_s, failed, ...):
// the rows of the run-metrics table (sim/metrics/run_metrics.h) that name a target.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Every name the table knows, in a fixed order (the order of sweep.csv's metric columns).
std::span<const std::string_view> metric_names();
bool is_metric(std::string_view name);
// The metric's value in `s`; nullopt when the run has none (no SLO pods, no started pod).
// Throws InputError for an unknown name, listing the known ones.
std::optional<double> metric_value(const RunSummary& s, std::string_view name);

}  // namespace slicelab
