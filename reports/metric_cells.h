// The metric columns of the terminal table and the report: a row of the run-metrics table
// written as a cell, and read back from a policy object of summary.json.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// The cell of column `m` for a run whose figures `value_of` gives (by row); "-" for none.
template <typename ValueOf>
std::string metric_cell(const RunMetric& m, const ValueOf& value_of);
std::string metric_cell(const RunMetric& m, std::optional<double> v, std::optional<double> max);

// Queueing and JCT figures leave out failed pods: where a policy lost pods its cells carry a "*"
// and the table this note.
bool of_pods_that_ran(const RunMetric& m);
inline constexpr const char* kOfPodsThatRan =
    "of completed pods only (queueing: pods that started and did not fail): the policy lost pods";

// The row kPointsMeanMax pairs with `m` (`<group>.max`); nullptr when none.
const RunMetric* companion_max(const RunMetric& m);

// Row `m` read back from one policy object of summary.json (derived rows: the sum of theirs);
// nullopt when the key is missing, null or not a number.
std::optional<double> json_metric(const nlohmann::ordered_json& policy, const RunMetric& m);

template <typename ValueOf>
std::string metric_cell(const RunMetric& m, const ValueOf& value_of) {
  const RunMetric* max = m.column.format == CellFormat::kPointsMeanMax ? companion_max(m) : nullptr;
  return metric_cell(m, value_of(m), max ? value_of(*max) : std::nullopt);
}

}  // namespace slicelab
