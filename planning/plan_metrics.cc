#include "planning/plan_metrics.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/metrics/class_metrics.h"
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

const RunMetric* plan_target_metric(std::string_view metric) {
  return target_named(metric);
}

PlanMetricName split_metric_name(std::string_view name) {
  const size_t open = name.find('[');
  if (open == std::string_view::npos || !name.ends_with(']')) return {name, {}};
  return {name.substr(0, open), name.substr(open + 1, name.size() - open - 2)};
}

bool is_seconds_metric(std::string_view name) {
  const std::string_view metric = split_metric_name(name).metric;
  return metric.size() > 2 && metric.ends_with("_s");
}

std::string metric_name_error(std::string_view name) {
  const auto [metric, cls] = split_metric_name(name);
  const RunMetric* m = target_named(metric);
  if (!m)
    return fmt::format("unknown metric '{}' (known: {}; a class's figure: METRIC[CLASS])", name,
                       fmt::join(target_names(), ", "));
  if (metric.size() == name.size()) return "";
  if (cls.empty() || cls.find_first_of("[] \t") != std::string_view::npos)
    return fmt::format("expected METRIC[CLASS], found '{}'", name);
  if (!has_class_figure(*m)) {
    std::vector<std::string_view> per_class;
    for (const RunMetric* t : target_metrics())
      if (has_class_figure(*t)) per_class.push_back(t->target.name);
    return fmt::format("'{}' has no per-class figure; a class-named target is one of: {}", metric,
                       fmt::join(per_class, ", "));
  }
  return "";
}

std::span<const std::string_view> metric_names() {
  return target_names();
}

bool is_metric(std::string_view name) {
  return metric_name_error(name).empty();
}

std::optional<double> metric_value(const RunSummary& s, std::string_view name) {
  if (const std::string why = metric_name_error(name); !why.empty()) throw InputError(why);
  const auto [metric, cls] = split_metric_name(name);
  const RunMetric& m = *target_named(metric);
  return cls.empty() ? metric_value(m, s) : class_metric_value(m, s, cls);
}

}  // namespace slicelab
