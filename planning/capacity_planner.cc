#include "planning/capacity_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <semaphore>

#include "planning/plan_metrics.h"
#include "planning/size_search.h"
#include "planning/workload_scaling.h"
#include "sim/parallel/parallel_for.h"
#include "sim/scenario/run_policies.h"

namespace slicelab {
namespace {

// At most `jobs` simulations at once across every policy's search.
class RunSlots {
 public:
  explicit RunSlots(int jobs) : sem_(std::max(jobs, 1)) {}
  template <typename Fn>
  void run(Fn fn) {
    sem_.acquire();
    try {
      fn();
    } catch (...) {
      sem_.release();
      throw;
    }
    sem_.release();
  }

 private:
  std::counting_semaphore<1024> sem_;
};

// A target's bound as people write it: seconds of the "_s" metrics as a duration ("5m").
std::string bound_text(const PlanTarget& t) {
  const bool seconds = is_seconds_metric(t.metric);
  if (!seconds || t.bound < 60) return fmt::format("{:g}{}", t.bound, seconds ? "s" : "");
  if (t.bound < 3600) return fmt::format("{:.3g}m", t.bound / 60);
  if (t.bound < 86400) return fmt::format("{:.3g}h", t.bound / 3600);
  return fmt::format("{:.3g}d", t.bound / 86400);
}

std::string targets_text(const PlanSpec& spec) {
  std::vector<std::string> t;
  for (const auto& x : spec.targets)
    t.push_back(fmt::format("{} {} {}", x.metric, x.op(), bound_text(x)));
  return fmt::format("{}", fmt::join(t, ", "));
}

PolicyPlan plan_policy(const Scenario& grown, const PlanSpec& spec, size_t group,
                       const PolicySpec& policy, int width, RunSlots& slots,
                       const std::function<void(double)>& progress) {
  std::mutex mu;
  std::map<int, PlanPoint> points;
  // A rough count of the runs a search takes, for the progress line only.
  const double expected =
      2.0 * std::ceil(std::log2(static_cast<double>(spec.max_nodes - spec.min_nodes + 2))) + 1.0;
  size_t done = 0;
  const BatchCheck check = [&](std::span<const int> sizes) {
    // One byte per size: threads write their own elements (vector<bool> packs bits, a race).
    std::vector<char> ok(sizes.size(), 0);
    // One thread per size: the run slots, not the width, bound how many simulations run.
    parallel_for(sizes.size(), static_cast<int>(sizes.size()), [&](size_t i) {
      slots.run([&] {
        Scenario sc = grown;
        sc.cluster.groups[group].count = sizes[i];
        PlanPoint p;
        p.group_nodes = sizes[i];
        p.gpus = sc.cluster.gpu_count();
        p.nodes = sc.cluster.node_count();
        p.cost_per_hour = cluster_cost_per_hour(sc.cluster, sc.catalog);
        p.summary = run_policy(sc, policy).summary;
        p.value = metric_value(p.summary, spec.targets.front().metric);
        p.meets = spec.met_by(p.summary);
        ok[i] = p.meets ? 1 : 0;
        const std::lock_guard lock(mu);
        points[sizes[i]] = std::move(p);
        ++done;
        if (progress) progress(std::min(0.99, static_cast<double>(done) / expected));
      });
    });
    return std::vector<bool>(ok.begin(), ok.end());
  };
  const SizeSearchResult r = find_smallest_size(spec.min_nodes, spec.max_nodes, width, check);
  PolicyPlan plan;
  plan.policy = policy.name;
  plan.non_monotone = r.non_monotone;
  plan.walked_up = r.walked_up;
  for (auto& [size, p] : points) plan.curve.push_back(p);
  if (r.size) plan.chosen = points.at(*r.size);
  std::vector<CurvePoint> cp;
  for (const auto& p : plan.curve)
    if (p.value) cp.push_back({static_cast<double>(p.gpus), *p.value});
  plan.fit = fit_capacity_curve(cp);
  if (progress) progress(1.0);
  return plan;
}

}  // namespace

CapacityPlan plan_capacity(const Scenario& scenario, const PlanSpec& spec, int jobs,
                           const PlanProgressFn& progress) {
  check_plan_spec(spec, scenario);
  Scenario grown = scenario;
  scale_workload(grown, spec.growth);
  const size_t group = node_group_index(grown.cluster, spec.node_group);
  const NodeGroup& g = grown.cluster.groups[group];

  CapacityPlan plan;
  plan.scenario = scenario.name;
  plan.spec = spec;
  plan.scaled =
      fmt::format("node group '{}' ({} x {} per node), {}..{} nodes", g.name, g.gpus_per_node,
                  grown.catalog.models()[g.gpu_model].name, spec.min_nodes, spec.max_nodes);
  const size_t n = grown.policies.size();
  plan.policies.resize(n);
  // Policies search side by side, each probing spec.probes sizes per round; at most `jobs`
  // simulations run at once. The sizes tried depend on the spec only, never on `jobs`.
  const int width = spec.probes;
  RunSlots slots(jobs);
  // One thread per policy, so that no policy's search waits for another's.
  parallel_for(n, static_cast<int>(n), [&](size_t k) {
    std::function<void(double)> fn;
    if (progress) fn = [&, k](double f) { progress(k, f); };
    plan.policies[k] = plan_policy(grown, spec, group, grown.policies[k], width, slots, fn);
  });
  plan.recommendation = recommend(plan);
  return plan;
}

std::string recommend(const CapacityPlan& plan) {
  const PolicyPlan* best = nullptr;
  for (const auto& p : plan.policies) {
    if (!p.chosen) continue;
    if (!best || p.chosen->cost_per_hour < best->chosen->cost_per_hour ||
        (p.chosen->cost_per_hour == best->chosen->cost_per_hour &&
         p.chosen->gpus < best->chosen->gpus))
      best = &p;
  }
  const std::string growth = fmt::format("{:g}x", plan.spec.growth);
  if (!best)
    return fmt::format(
        "No policy meets {} at {} the workload with up to {} nodes in node group '{}'; raise "
        "plan.scale.max or relax the targets.",
        targets_text(plan.spec), growth, plan.spec.max_nodes, plan.spec.node_group);
  return fmt::format(
      "Use {}: at {} the workload it meets {} with {} nodes in node group '{}' ({} GPUs in "
      "the cluster, ${:.2f}/h), the cheapest of the {} policies compared.",
      best->policy, growth, targets_text(plan.spec), best->chosen->group_nodes,
      plan.spec.node_group, best->chosen->gpus, best->chosen->cost_per_hour, plan.policies.size());
}

}  // namespace slicelab
