// Turns run results into the files of results/<scenario>/ (summary.json, pods.csv,
// timeseries.csv) and the terminal comparison table. Byte-stable for equal inputs.
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

nlohmann::ordered_json summary_json(const Scenario& scenario, std::span<const RunResult> runs);
std::string pods_csv(const Scenario& scenario, std::span<const RunResult> runs);
std::string timeseries_csv(std::span<const RunResult> runs);
std::string comparison_table(std::span<const RunResult> runs);

// Writes all result files into `dir`, replacing it only once every file is complete, so a
// failure never leaves partial output behind.
void write_results(const std::string& dir, const Scenario& scenario,
                   std::span<const RunResult> runs);

}  // namespace slicelab
