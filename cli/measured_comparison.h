// `slicelab compare --measured results/<dir> scenario.yaml`: the simulated run of a scenario's
// policies beside a measured one (from `slicelab replay --backend local`), metric by metric,
// with the error of each: measured − simulated, and that over the simulated value.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace slicelab {

// Both arguments are summary.json documents; policies are matched by name. Throws when the
// measured summary shares no policy with the simulated one.
std::string measured_comparison_table(const nlohmann::json& simulated,
                                      const nlohmann::json& measured);

// The same figures as one `slicelab.compare-measured/1` document (docs/results-format.md):
// `policies[].metrics[]` with `key` (the summary.json path), `simulated`, `measured`, `error`
// and `error_ratio` (null where a figure is missing or the simulated one is 0).
nlohmann::ordered_json measured_comparison_json(const nlohmann::json& simulated,
                                                const nlohmann::json& measured);

// Loads the scenario, simulates the policies the measured run holds, prints the table (or,
// with `json`, the document).
int compare_with_measured(const std::string& scenario_path, const std::string& measured_dir,
                          int jobs, bool json = false);

}  // namespace slicelab
