#include "planning/plan_metrics.h"

#include <fmt/format.h>

#include "sim/metrics/run_metrics.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

const RunMetric* target_named(std::string_view name) {
  for (const RunMetric* m : target_metrics())
    if (m->target.name == name) return m;
  return nullptr;
}

}  // namespace

std::span<const std::string_view> metric_names() {
  return target_names();
}

bool is_metric(std::string_view name) {
  return target_named(name) != nullptr;
}

std::optional<double> metric_value(const RunSummary& s, std::string_view name) {
  if (const RunMetric* m = target_named(name)) return metric_value(*m, s);
  throw InputError(
      fmt::format("unknown metric '{}' (known: {})", name, fmt::join(target_names(), ", ")));
}

}  // namespace slicelab
