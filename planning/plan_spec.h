// What a capacity plan asks for: targets on run metrics, a workload growth factor and which
// node group to size between which bounds. Read from a scenario's `plan:` block, then
// overridable from the command line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

struct PlanTarget {
  std::string metric;   // a name from plan_metrics.h
  bool at_most = true;  // true: value <= bound ("max"), false: value >= bound ("min")
  double bound = 0;

  const char* op() const { return at_most ? "<=" : ">="; }
  // A run without a value for the metric (no SLO pods, no pod started) never meets it.
  bool met_by(std::optional<double> value) const;
  bool met_by(const RunSummary& s) const;
};

struct PlanSpec {
  double growth = 1.0;
  std::vector<PlanTarget> targets;  // the first one's metric is the capacity curve's value
  std::string node_group;           // the group whose node count is searched
  int min_nodes = 1, max_nodes = 1;
  // Sizes probed per search round (galloping and bisection). Part of the plan, not of the
  // thread count, so that the sizes tried, and therefore the outputs, never depend on --jobs.
  int probes = 2;

  bool met_by(const RunSummary& s) const;
};

// Reads `plan:` from the scenario file (it is optional there) and fills defaults from the
// scenario: node group = the first one with GPUs, min 1, max 16 x its count, growth 1.
// Throws InputError with file:line:column for a malformed block.
PlanSpec read_plan_spec(const std::string& scenario_path, const Scenario& scenario);

// "metric<=value" or "metric>=value" (the CLI's --target); InputError when malformed.
PlanTarget parse_target(std::string_view text);
// Replaces the target on the same metric, or appends.
void set_target(PlanSpec& spec, PlanTarget target);
// InputError unless the spec has targets and sane bounds for `scenario`.
void check_plan_spec(const PlanSpec& spec, const Scenario& scenario);

}  // namespace slicelab
