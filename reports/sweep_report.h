// The report of a sweep folder (sweep.csv and sweep.json): each metric against cluster and
// workload scale per policy (heatmaps, means over seeds) and where each policy stops meeting
// the targets.
#pragma once

#include <filesystem>

#include "reports/report_content.h"

namespace slicelab {

// A folder holding sweep.json and no summary.json or plan.json.
bool is_sweep_folder(const std::filesystem::path& dir);

// Throws std::runtime_error naming the file on a missing or malformed sweep.json / sweep.csv.
Report build_sweep_report(const std::filesystem::path& dir);

}  // namespace slicelab
