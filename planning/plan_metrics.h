// The run metrics a plan target or a sweep column can name (queue_delay_p99_s, failed, ...):
// the rows of the run-metrics table (sim/metrics/run_metrics.h) that name a target.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/metrics/run_metrics.h"
#include "sim/metrics/run_result.h"

namespace slicelab {

// A target may name a workload class, "queue_delay_p99_s[inference]": the class's figure
// (RunSummary::per_class) for the targets the per-class block has (sim/metrics/class_metrics.h).
struct PlanMetricName {
  std::string_view metric;          // "queue_delay_p99_s"
  std::string_view workload_class;  // "inference"; "" for the whole run
};
PlanMetricName split_metric_name(std::string_view name);
// The run-metrics row of a target name (no class); nullptr when none.
const RunMetric* plan_target_metric(std::string_view metric);
// Whether the metric's values are seconds (its name ends in "_s", the class aside).
bool is_seconds_metric(std::string_view name);
// "" when `name` is a target (class-named or not); else why not, naming the known ones.
std::string metric_name_error(std::string_view name);

// Every name the table knows, in a fixed order (the order of sweep.csv's metric columns).
std::span<const std::string_view> metric_names();
bool is_metric(std::string_view name);
// The metric's value in `s`; nullopt when the run has none (no SLO pods, no started pod).
// Throws InputError for an unknown name, listing the known ones.
std::optional<double> metric_value(const RunSummary& s, std::string_view name);

}  // namespace slicelab
