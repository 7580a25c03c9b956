// What a compare is asked to decide (a scenario's `decide:` block): an ordered objective over
// rows of the run-metrics table and constraints a recommended policy must meet.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// One step of the objective: later steps only break ties of the earlier ones.
struct DecideGoal {
  const RunMetric* metric = nullptr;
  bool maximize = true;
  std::string name;  // as written ("completed", "queue_p99")

  std::string text() const;  // "max completed"
  // The figure this goal reads from one run (none when the run has none).
  std::optional<double> value(const RunSummary& s) const;
};

// "failed <= 0": a policy whose figure breaks it (or has none) is never recommended.
struct DecideConstraint {
  enum class Op : uint8_t { kLe, kLt, kGe, kGt, kEq };
  const RunMetric* metric = nullptr;
  Op op = Op::kLe;
  double bound = 0;
  std::string name;

  bool met_by(std::optional<double> value) const;
  std::optional<double> value(const RunSummary& s) const;
  std::string text() const;  // "failed <= 0"
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

// "max completed" / "min queue_p99" -> a goal; "failed <= 0" -> a constraint. std::nullopt and
// `why` set when malformed (the loader adds file:line:col).
std::optional<DecideGoal> parse_decide_goal(std::string_view text, std::string& why);
std::optional<DecideConstraint> parse_decide_constraint(std::string_view text, std::string& why);

}  // namespace slicelab
