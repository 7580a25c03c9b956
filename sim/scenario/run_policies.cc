#include "sim/scenario/run_policies.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "workloads/rng.h"

namespace slicelab {

RunResult run_policy(const Scenario& scenario, const PolicySpec& policy,
                     const ProgressFn& progress) {
  PlacementPolicy placement =
      build_placement(policy.placement,
                      PlacementEnvironment{scenario.pods, &scenario.catalog, scenario.target_pods});
  const auto sharing = make_sharing_mode(policy.sharing);
  RunInputs in{scenario.cluster, scenario.catalog, scenario.pods,
               *sharing,         scenario.engine,  derive_seed(scenario.seed, policy.name)};
  in.classes = &scenario.classes;         // workload classes' demand vectors (issue 4)
  in.target_pods = scenario.target_pods;  // FGD's target: the trace, for a fill workload
  RunResult r = run_simulation(in, placement, progress);
  r.policy = policy.name;
  return r;
}

std::vector<RunResult> run_policies(const Scenario& scenario, std::span<const size_t> which,
                                    int jobs, const PolicyProgressFn& progress) {
  std::vector<RunResult> results(which.size());
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto worker = [&] {
    for (size_t k = next++; k < which.size(); k = next++) {
      try {
        ProgressFn fn;
        if (progress) fn = [&, k](double f) { progress(k, f); };
        results[k] = run_policy(scenario, scenario.policies[which[k]], fn);
      } catch (...) {
        const std::lock_guard lock(error_mu);
        if (!error) error = std::current_exception();
      }
    }
  };
  const size_t threads =
      std::clamp<size_t>(static_cast<size_t>(std::max(jobs, 1)), 1, which.size());
  std::vector<std::jthread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace slicelab
