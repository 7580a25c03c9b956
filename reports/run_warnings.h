// Warnings about what a compare's figures can and cannot show: policies that decided alike,
// scorer weights that cannot matter, a replay that leaves the cluster idle (docs/results-format.md,
// "Warnings"). Printed under compare's table and written to summary.json's decision.warnings.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// Below this share of the cluster's GPU capacity over the window, a replay is called idle.
inline constexpr double kIdleDemandShare = 0.05;

// Contract: `runs` are the scenario's policies' runs of one seed (their `policy` names the
// scenario's policies). Identical-decision warnings need the runs' per-pod outcomes and are
// skipped for runs without them (means over seeds). Fill experiments get none of these.
// In order: identical decisions (groups of policies in the runs' order), inert weights (per
// policy, the scenario's order), the idle replay (at most one).
std::vector<std::string> run_warnings(const Scenario& scenario, std::span<const RunResult> runs);

// "a and b made identical placement decisions for all 4,732 pods" for each group of two or
// more runs whose every pod has the same status, node, GPUs and start time.
std::vector<std::string> identical_decision_warnings(std::span<const RunResult> runs);

// For a placement whose scorer weights cannot change a decision: a lone scorer whose weight is
// not 1 (select_host ignores it), or weights sharing a common factor (every total is scaled by
// it, so the maxima and ties are the same as with the reduced weights); empty otherwise.
std::string inert_weight_warning(const std::string& policy, const PlacementConfig& placement);

// The pods' GPU-time (GPUs x share x duration at reference speed) over the cluster's GPU-time in
// [first window start, last window end] of the runs; none when that window is empty (means over
// seeds keep no window).
std::optional<double> gpu_demand_share(const Scenario& scenario, std::span<const RunResult> runs);

}  // namespace slicelab
