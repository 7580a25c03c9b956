// Which rows of the run-metrics table a workload class has (RunSummary::per_class) and how to
// read them: a class is viewed as a small RunSummary, so one row means the same run-wide and
// per class, in summary.json, the seed means and the `decide:` targets (`queue_p99[inference]`).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// The summary.json keys a per_class entry holds, in the file's order.
std::span<const std::string_view> class_metric_keys();
// Whether `m` has a per-class figure: a key above, or "unplaced" (unschedulable + pending).
bool has_class_figure(const RunMetric& m);
// The names a class-named target may use, for messages ("completed, failed, ...").
std::string class_metric_names();

// `c` as a RunSummary holding only its figures (the rest zero or none).
RunSummary class_as_summary(const ClassSummary& c);
// Back: the per-class figures of `s`, under `name`.
ClassSummary summary_as_class(std::string name, const RunSummary& s);

// The class named `name` in `s`; nullptr when the run has no pods of it.
const ClassSummary* find_class(const RunSummary& s, std::string_view name);
// Row `m`'s figure for class `name` of `s`: none when the class has no pods or no value.
std::optional<double> class_metric_value(const RunMetric& m, const RunSummary& s,
                                         std::string_view name);

}  // namespace slicelab
