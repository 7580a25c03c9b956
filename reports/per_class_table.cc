#include "reports/per_class_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/aligned_table.h"
#include "reports/metric_cells.h"
#include "sim/metrics/class_metrics.h"
#include "sim/metrics/decide_spec.h"

namespace slicelab {

std::string per_class_table(std::span<const RunResult> runs) {
  if (std::all_of(runs.begin(), runs.end(),
                  [](const RunResult& r) { return r.summary.per_class.empty(); }))
    return "";
  // Heads and rows (by their decide: names), cells as the main table writes the same rows.
  constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kClassColumns = {{
      {"done", "completed"},
      {"failed", "failed"},
      {"unplaced", "unplaced"},
      {"queue p99", "queue_p99"},
      {"JCT p99", "jct_p99"},
      {"SLO", "slo"},
      {"GPU-h", "gpu_hours.allocated"},
  }};
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"policy", "class"});
  for (const auto& [head, name] : kClassColumns) rows.back().emplace_back(head);
  for (const RunResult& r : runs)
    for (const ClassSummary& c : r.summary.per_class) {
      const RunSummary view = class_as_summary(c);
      std::vector<std::string> row = {r.policy, c.workload_class};
      for (const auto& [head, name] : kClassColumns) {
        const RunMetric& m = *decide_metric(name);
        row.push_back(metric_cell(m, metric_value(m, view), std::nullopt));
      }
      rows.push_back(std::move(row));
    }
  return "\nper workload class:\n" + aligned_table(rows, 2);
}

}  // namespace slicelab
