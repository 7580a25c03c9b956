// Scaling a scenario for planning and sweeps: more work (growth) and more or fewer nodes.
// Both are pure functions of their inputs, so a scaled run is as reproducible as the base one.
#pragma once

#include <string_view>

#include "sim/cluster_spec.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// Multiplies the workload's arrival rate by `factor` (> 0):
// - a generated workload is regenerated with arrivals_per_hour x factor (and a pod-count cap
//   x factor, rounded), same seed and horizon, so arrivals stay Poisson at the higher rate;
// - any other workload (inline pods, traces, openb, CSV) is replicated: every pod appears
//   floor(factor) times, and a further evenly spread share frac(factor) of pods once more,
//   copies keeping their arrival times and named "<name>~<k>" (k = 2, 3, ...);
// - training jobs (workload.jobs) stay as they are, after the scaled pods;
// - each service's request rate is multiplied by `factor`, and its replica counts (fixed, or
//   the autoscaler's min and max) with it, rounded up.
// factor 1 leaves the scenario unchanged. Fill experiments cannot be scaled (InputError).
void scale_workload(Scenario& scenario, double factor);

// Every node group's count x factor, rounded to nearest (halves up), at least 1.
void scale_cluster(ClusterSpec& cluster, double factor);

// Index of the node group named `name`; InputError listing the groups when there is none.
size_t node_group_index(const ClusterSpec& cluster, std::string_view name);

// The hourly price of the cluster's GPUs (count x GPUs per node x the model's price).
double cluster_cost_per_hour(const ClusterSpec& cluster, const GpuCatalog& catalog);

}  // namespace slicelab
