#include "planning/workload_scaling.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "workloads/input_error.h"

namespace slicelab {

void scale_workload(Scenario& scenario, double factor) {
  if (!(factor > 0) || !std::isfinite(factor))
    throw InputError(fmt::format("workload scale must be a number above 0, found {}", factor));
  if (factor == 1.0) return;
  if (scenario.engine.fill)
    throw InputError(fmt::format(
        "{}: a fill experiment's workload cannot be scaled (its size follows the cluster)",
        scenario.path));
  if (scenario.generator) {
    GeneratorSpec g = *scenario.generator;
    g.arrivals_per_hour *= factor;
    if (g.pod_count)
      g.pod_count = static_cast<uint64_t>(
          std::max<double>(1.0, std::round(static_cast<double>(*g.pod_count) * factor)));
    scenario.pods = generate_pods(g, scenario.seed);
    scenario.generator = g;
    return;
  }
  const auto whole = static_cast<size_t>(std::floor(factor));
  const double frac = factor - std::floor(factor);
  std::vector<PodSpec> out;
  out.reserve(static_cast<size_t>(std::ceil(static_cast<double>(scenario.pods.size()) * factor)));
  for (size_t i = 0; i < scenario.pods.size(); ++i) {
    // Bresenham-style spreading: pod i gets the extra copy when the running total of `frac`
    // crosses an integer, so the extras are evenly spread over the trace, not bunched at its start.
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
