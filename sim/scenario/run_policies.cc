#include "sim/scenario/run_policies.h"

#include "sim/metrics/common_horizon.h"
#include "sim/modes/mode_registry.h"
#include "sim/parallel/parallel_for.h"
#include "workloads/rng.h"

namespace slicelab {

RunResult run_policy(const Scenario& scenario, const PolicySpec& policy, const ProgressFn& progress,
                     OutcomeFeed* feed, PlacementExplainer* explain) {
  PlacementPolicy placement = build_placement(
      policy.placement, PlacementEnvironment{scenario.pods, &scenario.catalog, scenario.target_pods,
                                             scenario.recorded, scenario.recorded_gpus});
  const auto sharing = make_sharing_mode(policy.sharing);
  EngineConfig engine = scenario.engine;
  if (policy.gang) engine.gang = *policy.gang;
  if (policy.preemption) engine.preemption = *policy.preemption;
  RunInputs in{scenario.cluster, scenario.catalog, scenario.pods,
               *sharing,         engine,           derive_seed(scenario.seed, policy.name)};
  in.classes = &scenario.classes;         // workload classes' demand vectors (issue 4)
  in.target_pods = scenario.target_pods;  // FGD's target: the trace, for a fill workload
  in.pinned = scenario.snapshot;          // a Kubernetes snapshot's running pods
  in.feed = feed;
  in.jobs = &scenario.jobs;
  in.services = &scenario.services;
  in.explain = explain;
  RunResult r = run_simulation(in, placement, progress);
  r.policy = policy.name;
  return r;
}

std::vector<RunResult> run_policies(const Scenario& scenario, std::span<const size_t> which,
                                    int jobs, const PolicyProgressFn& progress,
                                    OutcomeFeed* first_feed) {
  std::vector<RunResult> results(which.size());
  parallel_for(which.size(), jobs, [&](size_t k) {
    ProgressFn fn;
    if (progress) fn = [&, k](double f) { progress(k, f); };
    results[k] =
        run_policy(scenario, scenario.policies[which[k]], fn, k == 0 ? first_feed : nullptr);
  });
  // One cluster, one horizon: each policy's cost counts the same window (common_horizon.h).
  put_on_common_horizon(results);
  return results;
}

}  // namespace slicelab
