// The capacity planner: for each policy of a scenario, the smallest node count of one group
// that meets the plan's targets under the grown workload, its cost, the capacity curve of
// every size tried and its fit. Policies and probe sizes run in parallel threads.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planning/capacity_fit.h"
#include "planning/plan_spec.h"
#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// One evaluated cluster size.
struct PlanPoint {
  int group_nodes = 0;  // nodes in the scaled group
  size_t gpus = 0;      // GPUs of the whole cluster at this size
  size_t nodes = 0;     // nodes of the whole cluster
  double cost_per_hour = 0;
  std::optional<double> value;  // the first target's metric
  bool meets = false;           // every target met
  RunSummary summary;
};

struct PolicyPlan {
  std::string policy;
  std::optional<PlanPoint> chosen;  // none: no size up to the maximum meets the targets
  std::vector<PlanPoint> curve;     // every size evaluated, ascending
  std::optional<CapacityFit> fit;   // over the curve points that have a value
  bool non_monotone = false;
  int walked_up = 0;
};

struct CapacityPlan {
  std::string scenario;
  PlanSpec spec;
  std::string scaled;  // e.g. "node group 'h100' (8 x H100-80GB per node), 1..64 nodes"
  std::vector<PolicyPlan> policies;
  std::string recommendation;  // one sentence
};

// Called from worker threads with (policy index, share of its search done 0..1).
using PlanProgressFn = std::function<void(size_t, double)>;

// `scenario` is the base (not yet grown) scenario; the spec must pass check_plan_spec.
CapacityPlan plan_capacity(const Scenario& scenario, const PlanSpec& spec, int jobs,
                           const PlanProgressFn& progress = {});

// The one-sentence recommendation: the cheapest policy meeting every target (ties: fewer
// GPUs, then scenario order), or why none does.
std::string recommend(const CapacityPlan& plan);

}  // namespace slicelab
