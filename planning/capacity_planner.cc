#include "planning/capacity_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <semaphore>
#include <stdexcept>

#include "planning/plan_metrics.h"
#include "planning/size_search.h"
#include "planning/workload_scaling.h"
#include "sim/parallel/parallel_for.h"
#include "sim/scenario/replications.h"
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
  if (seconds && t.bound < 1) return fmt::format("{:g}ms", t.bound * 1000);
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

// One seed's run at one size.
struct SeedRun {
  RunSummary summary;
  bool meets = false;
};

// Every (seed, size) run of one policy, each run once: the seeds' own searches, the all-seeds
// check and the curve's completion share them (the simulator is deterministic).
class PolicyRuns {
 public:
  PolicyRuns(std::span<const Scenario> grown, const PlanSpec& spec, size_t group, size_t policy,
             RunSlots& slots, std::function<void()> ran)
      : grown_(grown),
        spec_(spec),
        group_(group),
        policy_(policy),
        slots_(slots),
        ran_(std::move(ran)) {}

  // Runs (seed, size) for every pair not run yet, in parallel; one thread per pair, the run
  // slots bound how many simulate at once.
  void run(const std::vector<std::pair<size_t, int>>& pairs) {
    std::vector<std::pair<size_t, int>> todo;
    {
      const std::lock_guard lock(mu_);
      for (const auto& k : pairs)
        if (!runs_.contains(k) && std::find(todo.begin(), todo.end(), k) == todo.end())
          todo.push_back(k);
    }
    parallel_for(todo.size(), static_cast<int>(todo.size()), [&](size_t i) {
      slots_.run([&] {
        const auto [seed, size] = todo[i];
        Scenario sc = grown_[seed];
        sc.cluster.groups[group_].count = size;
        SeedRun r;
        r.summary = run_policy(sc, sc.policies[policy_]).summary;
        r.meets = spec_.met_by(r.summary);
        {
          const std::lock_guard lock(mu_);
          runs_[todo[i]] = std::move(r);
        }
        if (ran_) ran_();
      });
    });
  }
  bool meets(size_t seed, int size) const {
    const std::lock_guard lock(mu_);
    return runs_.at({seed, size}).meets;
  }
  // Every size run in any seed, ascending.
  std::vector<int> sizes() const {
    const std::lock_guard lock(mu_);
    std::vector<int> out;
    for (const auto& [k, r] : runs_)
      if (std::find(out.begin(), out.end(), k.second) == out.end()) out.push_back(k.second);
    std::sort(out.begin(), out.end());
    return out;
  }
  // The size run in every seed (run() it first).
  PlanPoint point(int size) const {
    const std::lock_guard lock(mu_);
    Scenario sc = grown_.front();
    sc.cluster.groups[group_].count = size;
    PlanPoint p;
    p.group_nodes = size;
    p.gpus = sc.cluster.gpu_count();
    p.nodes = sc.cluster.node_count();
    p.cost_per_hour = cluster_cost_per_hour(sc.cluster, sc.catalog);
    p.meets = true;
    double sum = 0;
    size_t with_value = 0;
    for (size_t s = 0; s < grown_.size(); ++s) {
      const SeedRun& r = runs_.at({s, size});
      p.summaries.push_back(r.summary);
      p.meets_in.push_back(r.meets);
      p.meets = p.meets && r.meets;
      if (const auto v = metric_value(r.summary, spec_.targets.front().metric)) {
        sum += *v;
        ++with_value;
      }
    }
    if (with_value > 0) p.value = sum / static_cast<double>(with_value);
    return p;
  }

 private:
  std::span<const Scenario> grown_;
  const PlanSpec& spec_;
  size_t group_, policy_;
  RunSlots& slots_;
  std::function<void()> ran_;
  mutable std::mutex mu_;
  std::map<std::pair<size_t, int>, SeedRun> runs_;
};

PolicyPlan plan_policy(std::span<const Scenario> grown, const PlanSpec& spec, size_t group,
                       size_t policy, int width, RunSlots& slots,
                       const std::function<void(double)>& progress) {
  const size_t n_seeds = grown.size();
  // A rough count of the runs a search takes, for the progress line only.
  const double expected =
      static_cast<double>(n_seeds) *
      (2.0 * std::ceil(std::log2(static_cast<double>(spec.max_nodes - spec.min_nodes + 2))) + 1.0);
  std::atomic<size_t> done{0};
  PolicyRuns runs(grown, spec, group, policy, slots, [&] {
    const size_t d = ++done;
    if (progress) progress(std::min(0.99, static_cast<double>(d) / expected));
  });

  PolicyPlan plan;
  plan.policy = grown.front().policies[policy].name;
  plan.seed_sizes.resize(n_seeds);
  // Each seed's own search, side by side.
  parallel_for(n_seeds, static_cast<int>(n_seeds), [&](size_t s) {
    const BatchCheck check = [&](std::span<const int> sizes) {
      std::vector<std::pair<size_t, int>> pairs;
      for (const int z : sizes) pairs.emplace_back(s, z);
      runs.run(pairs);
      std::vector<bool> ok;
      for (const int z : sizes) ok.push_back(runs.meets(s, z));
      return ok;
    };
    const SizeSearchResult r = find_smallest_size(spec.min_nodes, spec.max_nodes, width, check);
    SeedSize& out = plan.seed_sizes[s];
    out.seed = grown[s].seed;
    out.group_nodes = r.size;
    out.non_monotone = r.non_monotone;
    out.walked_up = r.walked_up;
  });

  // Every seed: from the largest seed's own size up, the first size all seeds meet.
  const bool every_seed_sized = std::all_of(plan.seed_sizes.begin(), plan.seed_sizes.end(),
                                            [](const SeedSize& z) { return z.group_nodes; });
  std::optional<int> chosen;
  if (every_seed_sized) {
    int candidate = spec.min_nodes;
    for (const SeedSize& z : plan.seed_sizes) candidate = std::max(candidate, *z.group_nodes);
    for (;; ++candidate, ++plan.walked_up) {
      std::vector<std::pair<size_t, int>> pairs;
      for (size_t s = 0; s < n_seeds; ++s) pairs.emplace_back(s, candidate);
      runs.run(pairs);
      bool all = true;
      for (size_t s = 0; s < n_seeds; ++s) all = all && runs.meets(s, candidate);
      if (all) {
        chosen = candidate;
        break;
      }
      if (candidate == spec.max_nodes) break;
    }
  }
  // The curve: every size any seed ran, completed in every seed, so each point has the spread.
  const std::vector<int> sizes = runs.sizes();
  std::vector<std::pair<size_t, int>> pairs;
  for (const int z : sizes)
    for (size_t s = 0; s < n_seeds; ++s) pairs.emplace_back(s, z);
  runs.run(pairs);
  for (const int z : sizes) plan.curve.push_back(runs.point(z));
  if (chosen)
    for (const PlanPoint& p : plan.curve)
      if (p.group_nodes == *chosen) plan.chosen = p;
  plan.non_monotone = std::any_of(plan.seed_sizes.begin(), plan.seed_sizes.end(),
                                  [](const SeedSize& z) { return z.non_monotone; });
  bool failed_above = false;
  for (auto it = plan.curve.rbegin(); it != plan.curve.rend(); ++it) {
    if (!it->meets)
      failed_above = true;
    else if (failed_above)
      plan.non_monotone = true;
  }
  std::vector<CurvePoint> cp;
  for (const auto& p : plan.curve)
    if (p.value) cp.push_back({static_cast<double>(p.gpus), *p.value});
  plan.fit = fit_capacity_curve(cp);
  if (progress) progress(1.0);
  return plan;
}

}  // namespace

CapacityPlan plan_capacity(std::span<const Scenario> seeds, const PlanSpec& spec, int jobs,
                           const PlanProgressFn& progress) {
  if (seeds.empty()) throw std::invalid_argument("plan_capacity: no seeds");
  const Scenario& scenario = seeds.front();
  check_plan_spec(spec, scenario);
  std::vector<Scenario> grown(seeds.begin(), seeds.end());
  for (Scenario& sc : grown) scale_workload(sc, spec.growth);
  const size_t group = node_group_index(grown.front().cluster, spec.node_group);
  const NodeGroup& g = grown.front().cluster.groups[group];

  CapacityPlan plan;
  plan.scenario = scenario.name;
  for (const Scenario& sc : seeds) plan.seeds.push_back(sc.seed);
  plan.spec = spec;
  plan.scaled =
      fmt::format("node group '{}' ({} x {} per node), {}..{} nodes", g.name, g.gpus_per_node,
                  grown.front().catalog.models()[g.gpu_model].name, spec.min_nodes, spec.max_nodes);
  const size_t n = scenario.policies.size();
  plan.policies.resize(n);
  // Policies search side by side, each seed probing spec.probes sizes per round; at most `jobs`
  // simulations run at once. The sizes tried depend on the spec only, never on `jobs`.
  const int width = spec.probes;
  RunSlots slots(jobs);
  // One thread per policy, so that no policy's search waits for another's.
  parallel_for(n, static_cast<int>(n), [&](size_t k) {
    std::function<void(double)> fn;
    if (progress) fn = [&, k](double f) { progress(k, f); };
    plan.policies[k] = plan_policy(grown, spec, group, k, width, slots, fn);
  });
  plan.recommendation = recommend(plan);
  return plan;
}

CapacityPlan plan_capacity(const Scenario& scenario, const PlanSpec& spec, int jobs,
                           const PlanProgressFn& progress) {
  return plan_capacity(std::span<const Scenario>(&scenario, 1), spec, jobs, progress);
}

std::optional<std::pair<int, int>> PolicyPlan::seed_size_range() const {
  std::optional<std::pair<int, int>> r;
  for (const SeedSize& z : seed_sizes) {
    if (!z.group_nodes) continue;
    if (!r)
      r = std::pair{*z.group_nodes, *z.group_nodes};
    else
      r = std::pair{std::min(r->first, *z.group_nodes), std::max(r->second, *z.group_nodes)};
  }
  return r;
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
  const std::string seeds = seeds_text(plan.seeds);
  if (!best)
    return fmt::format(
        "No policy meets {} in every seed at {} the workload with up to {} nodes in node group "
        "'{}' (sized over {}); raise plan.scale.max or relax the targets.",
        targets_text(plan.spec), growth, plan.spec.max_nodes, plan.spec.node_group, seeds);
  const auto range = best->seed_size_range();
  const std::string spread =
      plan.seeds.size() == 1 ? std::string()
      : range->first == range->second
          ? fmt::format("every seed alone needs {}; ", range->first)
          : fmt::format("each seed alone needs {}-{}; ", range->first, range->second);
  return fmt::format(
      "Use {}: at {} the workload it meets {} in {} with {} nodes in node group '{}' ({}{} GPUs "
      "in the cluster, ${:.2f}/h), the cheapest of the {} policies compared.",
      best->policy, growth, targets_text(plan.spec),
      plan.seeds.size() == 1 ? seeds : "every one of " + seeds, best->chosen->group_nodes,
      plan.spec.node_group, spread, best->chosen->gpus, best->chosen->cost_per_hour,
      plan.policies.size());
}

}  // namespace slicelab
