// The figures that tell policies apart but have no column of their own (topology's
// communication quality): the terminal table and the report's summary both add them as columns.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

enum class MetricTable : uint8_t { kTerminal, kReport };

// A row's value for policy `i` (nullopt: none).
using PolicyValueFn = std::function<std::optional<double>(size_t policy, const RunMetric&)>;

// Rows of the run-metrics table, in its order, that `table` has no column for and whose value
// differs between two of the `policies` (relative difference over 1e-6). Only one-number
// headline rows take part (a mean or a single figure, not counts or percentiles), so a group
// adds at most one column.
std::vector<const RunMetric*> differing_metrics(size_t policies, const PolicyValueFn& value_of,
                                                MetricTable table);

// The column head of such a row ("communication_quality.mean" -> "comm quality") and its cell.
std::string differing_head(const RunMetric& m);
std::string differing_cell(const RunMetric& m, std::optional<double> v);

}  // namespace slicelab
