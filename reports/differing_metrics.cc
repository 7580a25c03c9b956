#include "reports/differing_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/report_format.h"

namespace slicelab {
namespace {

bool has_column(const RunMetric& m, MetricTable table) {
  if (m.column.head.empty()) return false;
  return table == MetricTable::kReport ? m.column.report : m.column.keep != kNeverInTerminal;
}

// A group's headline: its mean, or a figure that is not part of a group.
bool headline_row(const RunMetric& m) {
  if (m.json.empty() || m.block != MetricBlock::kNumber || m.report != ReportUse::kFlattened)
    return false;
  const size_t dot = m.json.rfind('.');
  return dot == std::string_view::npos || m.json.substr(dot + 1) == "mean";
}

}  // namespace

std::vector<const RunMetric*> differing_metrics(size_t policies, const PolicyValueFn& value_of,
                                                MetricTable table) {
  std::vector<const RunMetric*> out;
  for (const RunMetric& m : run_metrics()) {
    if (!headline_row(m) || has_column(m, table)) continue;
    std::optional<double> lo, hi;
    for (size_t i = 0; i < policies; ++i)
      if (const auto v = value_of(i, m); v && std::isfinite(*v)) {
        lo = std::min(lo.value_or(*v), *v);
        hi = std::max(hi.value_or(*v), *v);
      }
    if (lo && *hi - *lo > 1e-6 * std::max({std::abs(*lo), std::abs(*hi), 1e-9})) out.push_back(&m);
  }
  return out;
}

std::string differing_head(const RunMetric& m) {
  std::string key(m.json.substr(0, m.json.rfind(".mean")));
  if (key == "communication_quality") return "comm quality";
  if (key == "jobs.queue_delay_s") return "job queue mean";
  if (key == "jobs.jct_s") return "job JCT mean";
  if (key == "services.latency_s") return "lat mean";
  std::replace(key.begin(), key.end(), '_', ' ');
  std::replace(key.begin(), key.end(), '.', ' ');
  return key;
}

std::string differing_cell(const RunMetric& m, std::optional<double> v) {
  if (!v) return "-";
  switch (m.unit) {
    case MetricUnit::kSeconds:
      return m.json.starts_with("services.") ? latency(v) : duration(v);
    default:
      return is_whole(m.unit) ? count(v) : decimal(v, 2);
  }
}

}  // namespace slicelab
