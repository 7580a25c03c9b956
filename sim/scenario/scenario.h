// A validated scenario: catalog, cluster, workload (already materialised into pods), engine
// settings and the policies to compare. Built only by load_scenario, so always consistent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/engine/engine.h"
#include "sim/gpu_catalog.h"
#include "sim/interference/workload_class.h"
#include "sim/metrics/decide_spec.h"
// Policies become modes through the registry (make_sharing_mode), which every user of one needs.
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "sim/sharing/sharing_config.h"
#include "workloads/inputs/generator.h"
#include "workloads/job_table.h"
#include "workloads/pod_spec.h"
#include "workloads/service_table.h"

namespace slicelab {

struct PolicySpec {
  std::string name;
  PlacementConfig placement;
  SharingConfig sharing;
  // The policy's own engine.gang (docs/training-jobs.md#gang-modes); none: the engine's.
  std::optional<GangConfig> gang;
  // The policy's own engine.preemption; none: the engine's.
  std::optional<PreemptionPolicy> preemption;
};

struct Scenario {
  std::string name;
  std::string description;
  std::string path;
  uint64_t seed = 42;
  std::vector<uint64_t> seeds;  // `compare` runs every policy once per seed when given
  std::string workload_source;  // "inline", "trace <file>" or "generator"
  // The generator the pods came from, kept so that planners and sweeps can scale its rate.
  std::optional<GeneratorSpec> generator;
  GpuCatalog catalog;
  ClusterSpec cluster;
  std::vector<PodSpec> pods;
  // The pods FGD's target workload is built from, when not `pods` (empty): for a fill workload
  // the trace it was sampled from, as in the paper's simulator (its target comes from the
  // original trace pods, before the workload is tuned to the fill target).
  std::vector<PodSpec> target_pods;
  // workload.snapshot: the pods that run on a named node from time 0 (docs/kubernetes-import.md).
  std::vector<PinnedPod> snapshot;
  // workload.placements: the node each pod of a history import ran on, which the as-recorded
  // policy keeps it to (docs/record-replay.md#as-recorded); empty otherwise.
  std::vector<PinnedPod> recorded;
  std::vector<RecordedGpus> recorded_gpus;  // their GPUs on those nodes, where recorded
  // workload.jobs: the jobs whose pods follow the other pods in `pods` (docs/training-jobs.md).
  JobTable jobs;
  // workload.services: inference services, whose replica pools follow every other pod in `pods`
  // (docs/inference-services.md#services-in-a-scenario).
  ServiceTable services;
  EngineConfig engine;
  // The workload's own pods (and jobs' pods): all but the services' replica pools, which the
  // results report per service, not per pod.
  size_t workload_pods() const {
    return services.empty() ? pods.size() : services.first_replica_pod();
  }
  std::vector<PolicySpec> policies;
  // `decide:`: what a compare recommends by (default_decide_spec() when the block is absent).
  DecideSpec decide = default_decide_spec();
  // --- interference model (issue 4): the calibration's classes plus `workload_classes:` ---
  WorkloadClasses classes;
  std::string calibration;  // "<file>: <source>" of the calibration used, or empty
};

// Throws InputError with file:line:column on any malformed or inconsistent input.
// `seed_override` replaces the scenario's seed (the CLI's --seed).
Scenario load_scenario(const std::string& path, std::optional<uint64_t> seed_override = {});

}  // namespace slicelab
