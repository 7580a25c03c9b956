#include "sim/metrics/decide_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "sim/metrics/class_metrics.h"
#include "sim/metrics/queue_metrics.h"
#include "sim/metrics/service_metrics.h"

namespace slicelab {
namespace {

// Short names for the figures a decision is usually about.
constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kShortNames = {{
    {"completed", "pods.completed"},
    {"failed", "pods.failed"},
    {"unschedulable", "pods.unschedulable"},
    {"queue_p50", "queue_delay_s.p50"},
    {"queue_p95", "queue_delay_s.p95"},
    {"queue_p99", "queue_delay_s.p99"},
    {"jct_p50", "jct_s.p50"},
    {"jct_p99", "jct_s.p99"},
    {"slo", "slo.attainment"},
    {"allocation", "allocation_ratio.time_weighted"},
    {"cost", "cost_usd"},
    {"cost_per_completed", "cost_per_completed_usd"},
    {"gpu_hours_per_completed", "gpu_hours.per_completed"},
    {"neighbour_failures", "neighbour_failures"},
    {"latency_p50", "services.latency_s.p50"},
    {"latency_p95", "services.latency_s.p95"},
    {"latency_p99", "services.latency_s.p99"},
    {"within_slo", "services.within_slo"},
    {"requests_lost", "services.lost"},
    {"slo_met", "services.slo_met"},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

const RunMetric* named(std::string_view name, std::string& why) {
  const RunMetric* m = decide_metric(name);
  if (!m)
    why = fmt::format(
        "unknown metric '{}' (a summary.json key such as queue_delay_s.p99, a plan target name, "
        "or one of: {})",
        name, decide_metric_names());
  return m;
}

// "queue_p99[inference]" -> the row, its name and the class; nullptr and `why` when malformed.
const RunMetric* named_in_class(std::string_view text, std::string& name, std::string& cls,
                                std::string& why) {
  const size_t open = text.find('[');
  std::string_view metric = text;
  if (open != std::string_view::npos) {
    const std::string_view inside = text.substr(open + 1);
    if (inside.empty() || inside.back() != ']' || inside.size() < 2 ||
        inside.substr(0, inside.size() - 1).find_first_of("[] \t") != std::string_view::npos) {
      why = fmt::format("expected 'METRIC[CLASS]', found '{}'", text);
      return nullptr;
    }
    cls = std::string(inside.substr(0, inside.size() - 1));
    metric = trim(text.substr(0, open));
  }
  const RunMetric* m = named(metric, why);
  if (!m) return nullptr;
  if (cls.starts_with(kQueuePrefix)) {
    if (cls.size() == kQueuePrefix.size()) {
      why = fmt::format("expected 'METRIC[queue:NAME]', found '{}'", text);
      return nullptr;
    }
    if (!has_queue_figure(*m)) {
      why = fmt::format(
          "'{}' has no per-queue figure; a queue-named metric is a jobs.* or queues.* row of "
          "summary.json (docs/training-jobs.md#queues)",
          metric);
      return nullptr;
    }
  } else if (!cls.empty() && !has_class_figure(*m)) {
    why = fmt::format("'{}' has no per-class figure; a class-named metric is one of: {}", metric,
                      class_metric_names());
    return nullptr;
  }
  name = std::string(metric);
  return m;
}

std::string with_class(const std::string& name, const std::string& cls) {
  return cls.empty() ? name : fmt::format("{}[{}]", name, cls);
}

std::optional<double> decide_figure(const RunMetric& m, const std::string& cls,
                                    const RunSummary& s) {
  if (cls.empty()) return metric_value(m, s);
  if (cls.starts_with(kQueuePrefix))
    return queue_metric_value(m, s, std::string_view(cls).substr(kQueuePrefix.size()));
  return class_metric_value(m, s, cls);
}

}  // namespace

std::optional<double> DecideGoal::value(const RunSummary& s) const {
  return decide_figure(*metric, workload_class, s);
}

std::string DecideGoal::metric_text() const {
  return with_class(name, workload_class);
}

std::string DecideGoal::text() const {
  return fmt::format("{} {}", maximize ? "max" : "min", metric_text());
}

std::optional<double> DecideConstraint::value(const RunSummary& s) const {
  return decide_figure(*metric, workload_class, s);
}

std::string DecideConstraint::metric_text() const {
  return with_class(name, workload_class);
}

bool DecideConstraint::met_by(std::optional<double> value) const {
  if (!value) return false;
  switch (op) {
    case Op::kLe:
      return *value <= bound;
    case Op::kLt:
      return *value < bound;
    case Op::kGe:
      return *value >= bound;
    case Op::kGt:
      return *value > bound;
    case Op::kEq:
      return *value == bound;
  }
  return false;
}

std::string DecideConstraint::text() const {
  constexpr std::array<std::string_view, 5> kOps = {"<=", "<", ">=", ">", "=="};
  return fmt::format("{} {} {:g}", metric_text(), kOps[static_cast<size_t>(op)], bound);
}

DecideSpec default_decide_spec() {
  DecideSpec d;
  for (const auto& [name, max] : {std::pair<std::string_view, bool>{"completed", true},
                                  {"queue_p99", false},
                                  {"cost_per_completed", false}})
    d.objective.push_back({decide_metric(name), max, std::string(name), {}});
  return d;
}

const RunMetric* decide_metric(std::string_view name) {
  if (name.empty()) return nullptr;
  const auto usable = [](const RunMetric* m) {
    return m && m->block == MetricBlock::kNumber ? m : nullptr;
  };
  if (const RunMetric* m = usable(find_run_metric(name))) return m;
  for (const auto& [short_name, json] : kShortNames)
    if (short_name == name) return find_run_metric(json);
  for (const RunMetric* m : target_metrics())
    if (m->target.name == name) return m;
  for (const RunMetric* m : column_metrics())
    if (m->column.head == name) return m;
  return nullptr;
}

std::string decide_metric_names() {
  std::string out;
  for (const auto& [short_name, json] : kShortNames)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", short_name);
  return out + ", unplaced";
}

std::optional<DecideGoal> parse_decide_goal(std::string_view text, std::string& why) {
  text = trim(text);
  const size_t space = text.find_first_of(" \t");
  const std::string_view dir = text.substr(0, space);
  if (space == std::string_view::npos || (dir != "max" && dir != "min")) {
    why = fmt::format("expected 'max METRIC' or 'min METRIC', found '{}'", text);
    return std::nullopt;
  }
  std::string name, cls;
  const RunMetric* m = named_in_class(trim(text.substr(space)), name, cls, why);
  if (!m) return std::nullopt;
  return DecideGoal{m, dir == "max", std::move(name), std::move(cls)};
}

std::optional<DecideConstraint> parse_decide_constraint(std::string_view text, std::string& why) {
  text = trim(text);
  constexpr std::array<std::pair<std::string_view, DecideConstraint::Op>, 5> kOps = {{
      {"<=", DecideConstraint::Op::kLe},
      {">=", DecideConstraint::Op::kGe},
      {"==", DecideConstraint::Op::kEq},
      {"<", DecideConstraint::Op::kLt},
      {">", DecideConstraint::Op::kGt},
  }};
  for (const auto& [spelling, op] : kOps) {
    const size_t at = text.find(spelling);
    if (at == std::string_view::npos) continue;
    std::string name, cls;
    const std::string_view value = trim(text.substr(at + spelling.size()));
    const RunMetric* m = named_in_class(trim(text.substr(0, at)), name, cls, why);
    if (!m) return std::nullopt;
    double bound = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bound);
    if (value.empty() || ec != std::errc{} || end != value.data() + value.size() ||
        !std::isfinite(bound)) {
      why = fmt::format("'{}' is not a number (in '{}')", value, text);
      return std::nullopt;
    }
    return DecideConstraint{m, op, bound, std::move(name), std::move(cls)};
  }
  why =
      fmt::format("expected 'METRIC OP NUMBER' with OP one of <=, <, >=, >, ==, found '{}'", text);
  return std::nullopt;
}

std::string unknown_class_error(std::string_view workload_class,
                                std::span<const std::string> classes) {
  if (workload_class.starts_with(kQueuePrefix)) return {};  // the loader checks queue names
  if (workload_class.empty() ||
      std::find(classes.begin(), classes.end(), workload_class) != classes.end())
    return "";
  if (classes.empty())
    return fmt::format(
        "the workload has no pods of class '{}': it names no classes (pods without `class:` are "
        "all in 'default', and a class-named metric needs at least one other class)",
        workload_class);
  return fmt::format("the workload has no pods of class '{}' (its classes: {})", workload_class,
                     fmt::join(classes, ", "));
}

std::string named_figure_error(const RunMetric& m, std::string_view name,
                               std::span<const std::string> classes,
                               std::span<const std::string> services) {
  if (name.empty() || !is_service_metric(m)) return unknown_class_error(name, classes);
  if (std::find(services.begin(), services.end(), name) != services.end()) return "";
  if (services.empty())
    return fmt::format("names service '{}', and the workload has no services", name);
  return fmt::format("names service '{}', which the workload does not have (its services: {})",
                     name, fmt::join(services, ", "));
}

}  // namespace slicelab
