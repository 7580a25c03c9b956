// The extra files sharing modes write beside summary.json (claims.json for DRA), gathered from
// every run's ModeResults::documents without knowing the modes (docs/results-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <vector>

#include "sim/metrics/run_result.h"

namespace slicelab {

// The files some run has a part of, in the order of their first part.
std::vector<std::string> mode_document_files(std::span<const RunResult> runs);

// {"policies": [{"policy": NAME, "seed": N, KEY: PART}]}: every run's part of `file`, in the
// runs' order.
nlohmann::ordered_json mode_document_json(std::span<const RunResult> runs, const std::string& file);

}  // namespace slicelab
