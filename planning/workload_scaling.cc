#include "planning/workload_scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "workloads/input_error.h"

namespace slicelab {

namespace {

// The pods the scenario's own workload source made: those before the jobs' pods and the
// services' replica pools, which follow them.
size_t own_pod_count(const Scenario& scenario) {
  size_t end = scenario.pods.size();
  if (!scenario.jobs.empty()) end = std::min<size_t>(end, scenario.jobs[0].first_pod);
  if (!scenario.services.empty())
    end = std::min<size_t>(end, scenario.services.first_replica_pod());
  return end;
}

// Service `s` with `factor` times its requests: its rate curve scaled, and its replica counts
// (fixed, or the autoscaler's bounds) scaled up with it, so that the fleet it may grow to is not
// what limits it.
ServiceSpec scaled_service(ServiceSpec s, double factor) {
  s.rate.rate *= factor;
  for (auto& [at, rate] : s.rate.steps) rate *= factor;
  const auto scaled = [&](int n) {
    return static_cast<int>(
        std::clamp(std::ceil(n * factor), 1.0, static_cast<double>(kMaxServiceReplicas)));
  };
  s.replicas = scaled(s.replicas);
  if (s.autoscale) {
    s.autoscale->min_replicas = scaled(s.autoscale->min_replicas);
    s.autoscale->max_replicas = scaled(s.autoscale->max_replicas);
  }
  return s;
}

}  // namespace

void scale_workload(Scenario& scenario, double factor) {
  if (!(factor > 0) || !std::isfinite(factor))
    throw InputError(fmt::format("workload scale must be a number above 0, found {}", factor));
  if (factor == 1.0) return;
  if (scenario.engine.fill)
    throw InputError(fmt::format(
        "{}: a fill experiment's workload cannot be scaled (its size follows the cluster)",
        scenario.path));
  // The jobs' pods and the replica pools follow the workload's own pods: they are set aside,
  // and put back after the scaled pods (jobs as they are, re-indexed; services re-expanded).
  const size_t own = own_pod_count(scenario);
  const size_t jobs_end =
      scenario.services.empty() ? scenario.pods.size() : scenario.services.first_replica_pod();
  std::vector<PodSpec> job_pods(scenario.pods.begin() + static_cast<std::ptrdiff_t>(own),
                                scenario.pods.begin() + static_cast<std::ptrdiff_t>(jobs_end));
  scenario.pods.resize(own);
  if (scenario.generator) {
    GeneratorSpec g = *scenario.generator;
    g.arrivals_per_hour *= factor;
    if (g.pod_count)
      g.pod_count = static_cast<uint64_t>(
          std::max<double>(1.0, std::round(static_cast<double>(*g.pod_count) * factor)));
    scenario.pods = generate_pods(g, scenario.seed);
    scenario.generator = g;
  } else {
    const auto whole = static_cast<size_t>(std::floor(factor));
    const double frac = factor - std::floor(factor);
    std::vector<PodSpec> out;
    out.reserve(static_cast<size_t>(std::ceil(static_cast<double>(scenario.pods.size()) * factor)));
    for (size_t i = 0; i < scenario.pods.size(); ++i) {
      // Bresenham-style spreading: pod i gets the extra copy when the running total of `frac`
      // crosses an integer, so the extras are evenly spread over the trace, not bunched at its
      // start.
      const bool extra =
          std::floor(static_cast<double>(i + 1) * frac) > std::floor(static_cast<double>(i) * frac);
      const size_t copies = whole + (extra ? 1 : 0);
      for (size_t k = 0; k < copies; ++k) {
        out.push_back(scenario.pods[i]);
        if (k > 0) out.back().name = fmt::format("{}~{}", out.back().name, k + 1);
      }
    }
    scenario.pods = std::move(out);
  }
  if (!scenario.jobs.empty()) {
    const auto shift = static_cast<int64_t>(scenario.pods.size()) - static_cast<int64_t>(own);
    JobTable jobs;
    const size_t total = scenario.pods.size() + job_pods.size();
    for (size_t j = 0; j < scenario.jobs.size(); ++j) {
      JobInfo info = scenario.jobs[j];
      info.first_pod = static_cast<uint32_t>(static_cast<int64_t>(info.first_pod) + shift);
      jobs.add(std::move(info), total);
    }
    scenario.jobs = std::move(jobs);
    scenario.pods.insert(scenario.pods.end(), job_pods.begin(), job_pods.end());
  }
  if (!scenario.services.empty()) {
    std::vector<ServiceSpec> specs;
    for (const ServiceSpec& s : scenario.services.services())
      specs.push_back(scaled_service(s, factor));
    scenario.services.expand(std::move(specs), scenario.pods);
  }
}

void scale_cluster(ClusterSpec& cluster, double factor) {
  if (!(factor > 0) || !std::isfinite(factor))
    throw InputError(fmt::format("cluster scale must be a number above 0, found {}", factor));
  for (auto& g : cluster.groups)
    g.count = std::max(1, static_cast<int>(std::floor(g.count * factor + 0.5)));
}

size_t node_group_index(const ClusterSpec& cluster, std::string_view name) {
  std::string names;
  for (size_t i = 0; i < cluster.groups.size(); ++i) {
    if (cluster.groups[i].name == name) return i;
    names += (i ? ", " : "") + cluster.groups[i].name;
  }
  throw InputError(fmt::format("no node group named '{}' (the cluster has: {})", name, names));
}

double cluster_cost_per_hour(const ClusterSpec& cluster, const GpuCatalog& catalog) {
  double cost = 0;
  for (const auto& g : cluster.groups)
    if (g.gpus_per_node > 0)
      cost += g.count * g.gpus_per_node * catalog.models()[g.gpu_model].price_per_hour;
  return cost;
}

}  // namespace slicelab
