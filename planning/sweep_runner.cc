#include "planning/sweep_runner.h"

#include <algorithm>
#include <map>

#include "planning/workload_scaling.h"
#include "sim/parallel/parallel_for.h"
#include "sim/scenario/run_policies.h"

namespace slicelab {

std::vector<SweepRow> run_sweep(const SweepSpec& spec, std::span<const size_t> indices, int jobs,
                                const SweepProgressFn& progress) {
  // One grown workload per (seed, workload scale) the shard needs, built before the runs.
  std::map<std::pair<size_t, size_t>, Scenario> bases;
  for (const size_t i : indices) {
    const SweepPoint p = sweep_point(spec, i);
    const auto key = std::make_pair(p.seed, p.workload);
    if (bases.contains(key)) continue;
    Scenario sc = load_scenario(spec.scenario_path, spec.seeds[p.seed]);
    scale_workload(sc, spec.workload_scales[p.workload]);
    bases.emplace(key, std::move(sc));
  }
  std::vector<SweepRow> rows(indices.size());
  parallel_for(indices.size(), jobs, [&](size_t k) {
    SweepRow& row = rows[k];
    row.point = sweep_point(spec, indices[k]);
    const Scenario& base = bases.at({row.point.seed, row.point.workload});
    ClusterSpec cluster = base.cluster;
    scale_cluster(cluster, spec.cluster_scales[row.point.cluster]);
    const std::string& name = spec.policies[row.point.policy];
    const auto policy = std::find_if(base.policies.begin(), base.policies.end(),
                                     [&](const PolicySpec& s) { return s.name == name; });
    Scenario sc = base;  // the policy's run needs the scenario; the copy keeps bases shared
    sc.cluster = std::move(cluster);
    ProgressFn fn;
    if (progress) fn = [&, k](double f) { progress(k, f); };
    row.nodes = sc.cluster.node_count();
    row.gpus = sc.cluster.gpu_count();
    row.pods = sc.pods.size();
    row.summary = run_policy(sc, *policy, fn).summary;
  });
  return rows;
}

}  // namespace slicelab
