#include "sim/planning/plan_metrics.h"

#include <fmt/format.h>

#include <array>

#include "workloads/input_error.h"

namespace slicelab {
namespace {

using Getter = std::optional<double> (*)(const RunSummary&);

std::optional<double> dist(const Distribution& d, double v) {
  if (d.count == 0) return std::nullopt;
  return v;
}

struct Entry {
  std::string_view name;
  Getter get;
};

// Counts are doubles so that one comparison serves every target.
constexpr std::array kMetrics{
    Entry{"queue_delay_p50_s",
          [](const RunSummary& s) { return dist(s.queue_delay_s, s.queue_delay_s.p50); }},
    Entry{"queue_delay_p95_s",
          [](const RunSummary& s) { return dist(s.queue_delay_s, s.queue_delay_s.p95); }},
    Entry{"queue_delay_p99_s",
          [](const RunSummary& s) { return dist(s.queue_delay_s, s.queue_delay_s.p99); }},
    Entry{"queue_delay_max_s",
          [](const RunSummary& s) { return dist(s.queue_delay_s, s.queue_delay_s.max); }},
    Entry{"jct_p50_s", [](const RunSummary& s) { return dist(s.jct_s, s.jct_s.p50); }},
    Entry{"jct_p99_s", [](const RunSummary& s) { return dist(s.jct_s, s.jct_s.p99); }},
    Entry{"slowdown_p99", [](const RunSummary& s) { return dist(s.slowdown, s.slowdown.p99); }},
    Entry{"slo_attainment", [](const RunSummary& s) { return s.slo_attainment; }},
    Entry{"completed",
          [](const RunSummary& s) -> std::optional<double> {
            return static_cast<double>(s.completed);
          }},
    Entry{
        "failed",
        [](const RunSummary& s) -> std::optional<double> { return static_cast<double>(s.failed); }},
    Entry{"unschedulable",
          [](const RunSummary& s) -> std::optional<double> {
            return static_cast<double>(s.unschedulable);
          }},
    Entry{"pending_at_end",
          [](const RunSummary& s) -> std::optional<double> {
            return static_cast<double>(s.pending_at_end);
          }},
    Entry{"allocation_ratio",
          [](const RunSummary& s) -> std::optional<double> { return s.allocation_ratio; }},
    Entry{"fragmentation_ratio",
          [](const RunSummary& s) -> std::optional<double> { return s.fragmentation_ratio; }},
    Entry{"sm_utilization",
          [](const RunSummary& s) -> std::optional<double> { return s.sm_utilization; }},
    Entry{"gpu_hours_provisioned",
          [](const RunSummary& s) -> std::optional<double> { return s.gpu_hours_provisioned; }},
    Entry{"cost_usd", [](const RunSummary& s) -> std::optional<double> { return s.cost_usd; }},
};

constexpr auto kNames = [] {
  std::array<std::string_view, kMetrics.size()> n{};
  for (size_t i = 0; i < kMetrics.size(); ++i) n[i] = kMetrics[i].name;
  return n;
}();

}  // namespace

std::span<const std::string_view> metric_names() {
  return kNames;
}

bool is_metric(std::string_view name) {
  for (const auto& e : kMetrics)
    if (e.name == name) return true;
  return false;
}

std::optional<double> metric_value(const RunSummary& s, std::string_view name) {
  for (const auto& e : kMetrics)
    if (e.name == name) return e.get(s);
  throw InputError(fmt::format("unknown metric '{}' (known: {})", name, fmt::join(kNames, ", ")));
}

}  // namespace slicelab
