// What a compare is asked to decide (a scenario's `decide:` block): an ordered objective over
// rows of the run-metrics table and constraints a recommended policy must meet.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// One step of the objective: later steps only break ties of the earlier ones.
struct DecideGoal {
  const RunMetric* metric = nullptr;
  bool maximize = true;
  std::string name;  // as written ("completed", "queue_p99"), without the class
  // "" = the whole run; else the figure of this workload class (`completed[training]`), one
  // the per-class block has (sim/metrics/class_metrics.h).
  std::string workload_class;

  // The run's figure, or its class's; none when it has none (the class has no pods).
  std::optional<double> value(const RunSummary& s) const;
  std::string metric_text() const;  // "completed[training]"
  std::string text() const;         // "max completed[training]"
};

// "failed <= 0": a policy whose figure breaks it (or has none) is never recommended.
struct DecideConstraint {
  enum class Op : uint8_t { kLe, kLt, kGe, kGt, kEq };
  const RunMetric* metric = nullptr;
  Op op = Op::kLe;
  double bound = 0;
  std::string name;            // as written, without the class
  std::string workload_class;  // as DecideGoal's

  std::optional<double> value(const RunSummary& s) const;
  bool met_by(std::optional<double> value) const;
  std::string metric_text() const;  // "queue_p99[inference]"
  std::string text() const;         // "failed <= 0", "queue_p99[inference] <= 60"
};

struct DecideSpec {
  std::vector<DecideGoal> objective;
  std::vector<DecideConstraint> constraints;
  bool stated = false;  // false: the default below, not the scenario's
};

// Most completed pods, then the lowest p99 queueing of the pods that did not fail, then the
// lowest cost per completed pod; no constraints.
DecideSpec default_decide_spec();

// The row a decide: name means: a summary.json key ("queue_delay_s.p99"), a planner target name
// ("queue_delay_p99_s"), a short name ("queue_p99", "slo", "cost_per_completed") or a terminal
// column head ("unplaced"); nullptr when none. Block rows (not one number) are never named.
const RunMetric* decide_metric(std::string_view name);
// The short names, for messages.
std::string decide_metric_names();

// "max completed" / "min queue_p99" -> a goal; "failed <= 0" -> a constraint. A metric may name
// a workload class, "queue_p99[inference]", when the per-class block has it (whether the
// workload has that class is the loader's check: check_decide_classes). std::nullopt and `why`
// set when malformed (the loader adds file:line:col).
std::optional<DecideGoal> parse_decide_goal(std::string_view text, std::string& why);
std::optional<DecideConstraint> parse_decide_constraint(std::string_view text, std::string& why);

// "" when `workload_class` is empty or one of `classes` (the workload's class names; empty when
// every pod is in "default": its summary has no per-class block); else why not, naming them.
std::string unknown_class_error(std::string_view workload_class,
                                std::span<const std::string> classes);
// As unknown_class_error, but a services.* row's bracket names a service of `services` (the
// workload's service names) instead of a class.
std::string named_figure_error(const RunMetric& m, std::string_view name,
                               std::span<const std::string> classes,
                               std::span<const std::string> services);

}  // namespace slicelab
