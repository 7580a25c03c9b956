#include "sim/metrics/class_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "sim/metrics/service_metrics.h"

namespace slicelab {
namespace {

// The SLO counts are not averaged over seeds (run_metrics.cc), so a class shows only its
// attainment; the distributions only their p50 and p99.
constexpr std::array<std::string_view, 11> kClassKeys = {
    "pods.total",          "pods.completed",    "pods.failed",         "pods.unschedulable",
    "pods.pending_at_end", "queue_delay_s.p50", "queue_delay_s.p99",   "jct_s.p50",
    "jct_s.p99",           "slo.attainment",    "gpu_hours.allocated",
};

}  // namespace

std::span<const std::string_view> class_metric_keys() {
  return kClassKeys;
}

bool has_class_figure(const RunMetric& m) {
  if (is_service_metric(m)) return true;  // a service's, named as a class is
  if (m.block != MetricBlock::kNumber) return false;
  if (m.json.empty()) return m.column.head == "unplaced";
  const auto keys = class_metric_keys();
  return std::find(keys.begin(), keys.end(), m.json) != keys.end();
}

std::string class_metric_names() {
  return "completed, failed, unschedulable, pending_at_end, unplaced, queue_p50, queue_p99, "
         "jct_p50, jct_p99, slo, pods.total, gpu_hours.allocated (a service's: latency_p50, "
         "latency_p95, latency_p99, within_slo, requests_lost, slo_met)";
}

RunSummary class_as_summary(const ClassSummary& c) {
  RunSummary s;
  s.pods = c.pods;
  s.completed = c.completed;
  s.failed = c.failed;
  s.unschedulable = c.unschedulable;
  s.pending_at_end = c.pending_at_end;
  s.queue_delay_s = c.queue_delay_s;
  s.jct_s = c.jct_s;
  s.slo_pods = c.slo_pods;
  s.slo_met = c.slo_met;
  s.slo_undecided = c.slo_undecided;
  s.slo_attainment = c.slo_attainment;
  s.gpu_hours_allocated = c.gpu_hours_allocated;
  return s;
}

ClassSummary summary_as_class(std::string name, const RunSummary& s) {
  ClassSummary c;
  c.workload_class = std::move(name);
  c.pods = s.pods;
  c.completed = s.completed;
  c.failed = s.failed;
  c.unschedulable = s.unschedulable;
  c.pending_at_end = s.pending_at_end;
  c.queue_delay_s = s.queue_delay_s;
  c.jct_s = s.jct_s;
  c.slo_pods = s.slo_pods;
  c.slo_met = s.slo_met;
  c.slo_undecided = s.slo_undecided;
  c.slo_attainment = s.slo_attainment;
  c.gpu_hours_allocated = s.gpu_hours_allocated;
  return c;
}

const ClassSummary* find_class(const RunSummary& s, std::string_view name) {
  for (const ClassSummary& c : s.per_class)
    if (c.workload_class == name) return c.pods > 0 ? &c : nullptr;
  return nullptr;
}

std::optional<double> class_metric_value(const RunMetric& m, const RunSummary& s,
                                         std::string_view name) {
  if (is_service_metric(m)) return service_metric_value(m, s, name);
  const ClassSummary* c = find_class(s, name);
  if (!c || !has_class_figure(m)) return std::nullopt;
  return metric_value(m, class_as_summary(*c));
}

}  // namespace slicelab
