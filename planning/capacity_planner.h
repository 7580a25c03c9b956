// The capacity planner: for each policy of a scenario, the smallest node count of one group
// that meets the plan's targets under the grown workload in every seed (replication) planned,
// each seed's own smallest size, the capacity curve of every size tried over the seeds and its
// fit. Policies, seeds and probe sizes run in parallel threads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "planning/capacity_fit.h"
#include "planning/plan_spec.h"
#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// One evaluated cluster size, run in every seed of the plan.
struct PlanPoint {
  int group_nodes = 0;  // nodes in the scaled group
  size_t gpus = 0;      // GPUs of the whole cluster at this size
  size_t nodes = 0;     // nodes of the whole cluster
  double cost_per_hour = 0;
  std::vector<RunSummary> summaries;  // one per seed, in the plan's seed order
  std::vector<bool> meets_in;         // per seed: every target met
  // The first target's metric: the mean over the seeds that have a value (none when none has).
  std::optional<double> value;
  bool meets = false;  // every target met in every seed
};

// One seed's own search: the smallest size that meets the targets with that seed's workload.
struct SeedSize {
  uint64_t seed = 0;
  std::optional<int> group_nodes;  // none: no size up to the maximum meets them in this seed
  bool non_monotone = false;       // this seed's check failed above a size where it held
  int walked_up = 0;
};

struct PolicyPlan {
  std::string policy;
  // The smallest size, from the largest seed's own size up, that meets the targets in every
  // seed; none when some seed meets them at no size up to the maximum.
  std::optional<PlanPoint> chosen;
  std::vector<SeedSize> seed_sizes;  // in the plan's seed order
  std::vector<PlanPoint> curve;      // every size evaluated, ascending, each in every seed
  std::optional<CapacityFit> fit;    // over the curve points' mean values
  bool non_monotone = false;         // some seed's check, or the all-seeds check, is not
  int walked_up = 0;                 // sizes walked above the largest seed's own size

  // The range of the seeds' own sizes (over the seeds that have one); none when none has.
  std::optional<std::pair<int, int>> seed_size_range() const;
};

struct CapacityPlan {
  std::string scenario;
  std::vector<uint64_t> seeds;  // the replications sized over, in order
  PlanSpec spec;
  std::string scaled;  // e.g. "node group 'h100' (8 x H100-80GB per node), 1..64 nodes"
  std::vector<PolicyPlan> policies;
  std::string recommendation;  // one sentence
};

// Called from worker threads with (policy index, share of its search done 0..1).
using PlanProgressFn = std::function<void(size_t, double)>;

// `seeds` holds the base (not yet grown) scenario once per seed, each loaded with its seed
// (load_scenario(path, seed)), at least one; the cluster, policies and plan are the first's.
// The spec must pass check_plan_spec. A policy's size is the smallest meeting the targets in
// every seed: each seed is searched on its own, then the largest of their sizes is run in every
// seed and walked up while any seed fails it. With every seed's check monotone in the size,
// that is the smallest size meeting them all (none below the largest seed's size can).
CapacityPlan plan_capacity(std::span<const Scenario> seeds, const PlanSpec& spec, int jobs,
                           const PlanProgressFn& progress = {});
// One seed: `scenario` as it was loaded.
CapacityPlan plan_capacity(const Scenario& scenario, const PlanSpec& spec, int jobs,
                           const PlanProgressFn& progress = {});

// The one-sentence recommendation: the cheapest policy meeting every target in every seed (ties:
// fewer GPUs, then scenario order), with the seeds and their own sizes, or why none does.
std::string recommend(const CapacityPlan& plan);

}  // namespace slicelab
