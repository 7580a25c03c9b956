#include "reports/metric_direction.h"

#include <utility>

namespace slicelab {
namespace {

// The figures with a direction. Everything a pod waits or pays for is lower-better; pods done
// and service levels met are higher-better. Left out on purpose: counts of samples (`*.count`),
// settings and extents (window, fill), allocation and utilisation (a goal, not a verdict), the
// communication quality and isolation error distributions (their reading depends on the study).
constexpr std::pair<std::string_view, Better> kDirections[] = {
    {"pods.completed", Better::kHigher},
    {"pods.failed", Better::kLower},
    {"pods.failed_own_memory", Better::kLower},
    {"pods.failed_faults", Better::kLower},
    {"pods.unschedulable", Better::kLower},
    {"pods.pending_at_end", Better::kLower},
    {"unplaced", Better::kLower},
    {"fragmentation_ratio", Better::kLower},
    {"queue_delay_s.mean", Better::kLower},
    {"queue_delay_s.p50", Better::kLower},
    {"queue_delay_s.p95", Better::kLower},
    {"queue_delay_s.p99", Better::kLower},
    {"queue_delay_s.max", Better::kLower},
    {"jct_s.mean", Better::kLower},
    {"jct_s.p50", Better::kLower},
    {"jct_s.p95", Better::kLower},
    {"jct_s.p99", Better::kLower},
    {"jct_s.max", Better::kLower},
    {"slowdown.mean", Better::kLower},
    {"slowdown.p50", Better::kLower},
    {"slowdown.p95", Better::kLower},
    {"slowdown.p99", Better::kLower},
    {"slowdown.max", Better::kLower},
    {"slo.met", Better::kHigher},
    {"slo.attainment", Better::kHigher},
    {"gpu_hours.per_completed", Better::kLower},
    {"cost_usd", Better::kLower},
    {"cost_per_completed_usd", Better::kLower},
    {"neighbour_failures", Better::kLower},
    {"restarts.total", Better::kLower},
    {"restarts.pods", Better::kLower},
    {"mig.reconfigurations", Better::kLower},
    {"mig.reconfiguration_gpu_s", Better::kLower},
    {"mig.stranded_ratio", Better::kLower},
};

}  // namespace

std::optional<Better> better_direction(const RunMetric& m) {
  const std::string_view key = m.json.empty() ? m.column.head : m.json;
  for (const auto& [name, better] : kDirections)
    if (name == key) return better;
  return std::nullopt;
}

std::string_view better_name(Better b) {
  return b == Better::kHigher ? "higher" : "lower";
}

}  // namespace slicelab
