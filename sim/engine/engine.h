// The discrete-event engine: replays a workload on a cluster under one placement policy and
// one sharing mode. Arrivals, finishes and samples; rate-based progress recomputed per GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "sim/cluster_spec.h"
#include "sim/engine/cluster_queue_spec.h"
#include "sim/engine/gang_table.h"
#include "sim/engine/preemption.h"
#include "sim/engine/restart_policy.h"
#include "sim/gpu_catalog.h"
#include "sim/interference/workload_class.h"
#include "sim/metrics/outcome_feed.h"
#include "sim/metrics/run_result.h"
#include "sim/placement/node_name_filter.h"
#include "sim/placement/placement_policy.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/pod_spec.h"
#include "workloads/service_table.h"

namespace slicelab {

class PlacementExplainer;  // sim/placement/placement_explanation.h

struct EngineConfig {
  // false: strict FIFO (by priority, then arrival); a blocked head blocks everyone behind it.
  // true: later pods may pass a blocked head when they fit.
  bool backfill = false;
  double sample_interval_s = 300.0;
  std::optional<double> until_s;  // stop here; unfinished pods are reported as such
  // Divide run times by the GPU model's relative speed (durations are then on A100-80GB).
  bool speed_scaling = false;
  // The FGD paper's fill experiment: each pod gets one placement attempt when it arrives,
  // nothing ever departs, and the run records allocation and fragmentation per arrival.
  bool fill = false;
  // Kubernetes' restart policy for failed pods (Never: they stay failed); not in fill runs.
  RestartConfig restart;
  // How the pods of a job's gang start (engine.gang); only read when the workload has gangs.
  GangConfig gang;
  // Whether a pod that finds no node evicts lower-priority pods (engine.preemption).
  PreemptionPolicy preemption = PreemptionPolicy::kNever;
  // The queues that admit jobs by quota (the scenario's `queues:`); empty: none.
  QueueConfig queues;
};

// Called now and then with the share of pod events processed, 0..1.
using ProgressFn = std::function<void(double)>;

struct RunInputs {
  const ClusterSpec& cluster;
  const GpuCatalog& catalog;
  std::span<const PodSpec> pods;
  const SharingMode& sharing;
  EngineConfig config;
  uint64_t seed = 0;
  // Demand vectors of the pods' workload classes (issue 4); pods of unknown classes use their
  // gpu_milli as SM demand and interfere with no one.
  const WorkloadClasses* classes = nullptr;
  // The pods FGD's target workload (its popular pod shapes) is built from; empty = `pods`. The
  // fill experiment passes the trace it samples from, as the paper's simulator does.
  std::span<const PodSpec> target_pods = {};
  // Running pods of a cluster snapshot (docs/kubernetes-import.md): each may go only to its
  // node. Empty for every other workload, which then runs without the node-name filter.
  std::span<const PinnedPod> pinned = {};
  // Where the run publishes its leading final outcomes while it goes on (the first policy's
  // pods.csv rows are written meanwhile); none: nothing is published.
  OutcomeFeed* feed = nullptr;
  // The workload's jobs (docs/training-jobs.md); null or empty: every pod is on its own. Fill
  // experiments place every pod on its own.
  const JobTable* jobs = nullptr;
  // The workload's inference services, whose replica pools are the last pods of `pods`
  // (docs/inference-services.md); null or empty: none. The run then needs config.until_s.
  const ServiceTable* services = nullptr;
  // `slicelab explain`: records the scheduling attempts of its pod (placement_explanation.h);
  // null (the default): nothing is recorded, at the cost of one test per attempt.
  PlacementExplainer* explain = nullptr;
};

RunResult run_simulation(const RunInputs& in, PlacementPolicy& placement,
                         const ProgressFn& progress = {});

}  // namespace slicelab
