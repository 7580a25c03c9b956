#include "reports/metric_cells.h"

#include <fmt/format.h>

#include <cmath>

#include "reports/report_format.h"

namespace slicelab {

std::string metric_cell(const RunMetric& m, std::optional<double> v, std::optional<double> max) {
  switch (m.column.format) {
    case CellFormat::kInteger:
      return count(v);
    case CellFormat::kPercent:
      return percent(v);
    case CellFormat::kDuration:
      return duration(v);
    case CellFormat::kFixed1:
      return decimal(v, 1);
    case CellFormat::kFixed2:
      return decimal(v, 2);
    case CellFormat::kPointsMeanMax:
      return v ? fmt::format("{:.1f}/{:.1f} pt", 100 * *v, 100 * max.value_or(0)) : "-";
    case CellFormat::kLatency:
      return latency(v);
  }
  return "-";
}

bool of_pods_that_ran(const RunMetric& m) {
  return m.json.starts_with("queue_delay_s.") || m.json.starts_with("jct_s.") ||
         m.json.starts_with("slowdown.");
}

const RunMetric* companion_max(const RunMetric& m) {
  const size_t dot = m.json.rfind('.');
  if (dot == std::string_view::npos) return nullptr;
  return find_run_metric(fmt::format("{}.max", m.json.substr(0, dot)));
}

std::optional<double> json_metric(const nlohmann::ordered_json& policy, const RunMetric& m) {
  if (m.json.empty()) {
    std::optional<double> sum;
    for (const std::string_view part : m.sum_of)
      if (const RunMetric* p = find_run_metric(part))
        if (const auto v = json_metric(policy, *p)) sum = sum.value_or(0) + *v;
    return sum;
  }
  const nlohmann::ordered_json* at = &policy;
  std::string_view rest = m.json;
  while (true) {
    const size_t dot = rest.find('.');
    const std::string key(rest.substr(0, dot));
    if (!at->is_object()) return std::nullopt;
    const auto it = at->find(key);
    if (it == at->end()) return std::nullopt;
    at = &*it;
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  if (!at->is_number()) return std::nullopt;
  const double v = at->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace slicelab
