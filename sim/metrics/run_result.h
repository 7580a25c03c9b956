// Everything one policy's run produces: per-pod outcomes, the time series of samples and the
// summary metrics defined in DESIGN.md. Reports and tests read only this.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/metrics/mode_results.h"
#include "sim/metrics/reason_table.h"

namespace slicelab {

enum class PodStatus : uint8_t { kCompleted, kFailed, kUnschedulable, kPending, kRunning };
const char* to_string(PodStatus s);

// Why a pod failed (status kFailed); the summary counts failures caused by a neighbour.
enum class FailureCause : uint8_t {
  kNone,
  kNeighboursMemory,     // no memory isolation: its neighbours held the GPU's memory
  kOverMemoryCap,        // its own peak exceeded its hard limit (interposer cap, MPS pinned limit)
  kClientFault,          // MPS: a modelled fatal fault of its own
  kNeighbourFault,       // MPS: a neighbour's failure took it down
  kInstanceMemory,       // MIG: its instance holds less memory than it needs
  kOvercommittedMemory,  // HAMi memory overcommit: its GPU's tenants use more than it holds
  kAllocationRefused,    // the device plugin failed its Allocate (failRequestsGreaterThanOne)
  // A measured run (slicelab replay): the pod's process exited non-zero, died of a signal or was
  // killed on its timeout, other than out of memory. Never set by the simulator.
  kProcessFailed,
};

// One per pod of a run, so kept small (48 bytes; a million-pod replay holds a million): the
// doubles first, then the 4-byte fields, the reason as an index into the run's ReasonTable, the
// GPU count (at most kMaxGpusPerNode) and the restart count as one byte each. A pod restarted
// (engine.restart) reports its last attempt: its start, finish, node and GPUs, and the reason
// only when that attempt failed.
struct PodOutcome {
  double start_s = -1;   // -1 = never started
  double finish_s = -1;  // -1 = not finished
  double solo_s = 0;     // run time alone on the GPU it ran on
  // --- capped modes (MPS, interposer; issue 4) ---
  // Time-weighted |promised - delivered| share of the GPU while it ran; -1: not capped.
  double isolation_error = -1;
  int32_t node = -1;
  uint32_t gpu_begin = 0;                // into RunResult::pod_gpus (GPU index within the node)
  uint32_t reason = ReasonTable::kNone;  // why it failed or was never placed (RunResult::reasons)
  uint8_t gpu_count = 0;                 // its GPUs: pod_gpus[gpu_begin, gpu_end())
  PodStatus status = PodStatus::kPending;
  FailureCause failure = FailureCause::kNone;
  // Times it was restarted after failing (in place or re-queued) (engine.restart), saturating at
  // 255; the summary's restarts.total counts them all.
  uint8_t restarts = 0;

  uint32_t gpu_end() const { return gpu_begin + gpu_count; }
};
static_assert(sizeof(PodOutcome) <= 48, "PodOutcome is held once per pod of a run");

// count = 0 means no values; the other fields are then 0 and reported as null.
struct Distribution {
  size_t count = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

struct ModelUsage {
  std::string model;
  size_t gpus = 0;
  double sm_utilization = 0;      // time-weighted mean over the model's GPUs, 0..1
  double memory_utilization = 0;  // time-weighted mean of used/total device memory, 0..1
  double allocation_ratio = 0;    // time-weighted allocated share of the model's GPUs
  double gpu_hours_provisioned = 0;
  double gpu_hours_allocated = 0;
  double cost_usd = 0;
  double price_per_hour = 0;  // the catalog's, per GPU (not written): rescales cost_usd
};

// One workload class's share of a run (RunSummary::per_class): pods without a `class:` are in
// class "default". Figures as the run-wide ones, over the class's pods only; gpu_hours_allocated
// is what its pods asked for while they ran (GPUs x share asked x time of their last attempt in
// the window), not what the sharing mode set aside, so the classes' sum can differ from the
// run's figure (time-slice replicas, MIG instances larger than asked, restarts).
struct ClassSummary {
  std::string workload_class;
  size_t pods = 0, completed = 0, failed = 0, unschedulable = 0, pending_at_end = 0;
  Distribution queue_delay_s, jct_s;
  size_t slo_pods = 0, slo_met = 0, slo_undecided = 0;
  std::optional<double> slo_attainment;
  double gpu_hours_allocated = 0;

  size_t unplaced() const { return unschedulable + pending_at_end; }
};

struct Sample {
  double time_s = 0;
  double allocation_ratio = 0;
  double fragmentation_ratio = 0;  // fragmented GPU milli / total GPU milli (FGD's measure)
  double sm_utilization = 0;
  uint32_t running = 0;
  uint32_t pending = 0;
};

// One point of the fill experiment, after a pod arrived; all in GPUs.
struct FillPoint {
  double arrived = 0;     // GPU demand of the pods arrived so far
  double allocated = 0;   // GPU capacity allocated
  double fragmented = 0;  // free GPU capacity the target workload cannot use
  double failed = 0;      // GPU demand of arrived pods that could not be placed
};

// Fill figures as shares of the cluster's GPU capacity, when arrived demand first reached the
// capacity and at the end.
struct FillSummary {
  double capacity_gpus = 0;
  double arrived_at_end = 0;
  double allocated_at_full = 0, fragmented_at_full = 0, failed_at_full = 0;
  double allocated_at_end = 0, fragmented_at_end = 0, failed_at_end = 0;
};

// Restarts of failed pods (engine.restart); the summary holds them only when the run has a
// restart policy.
struct RestartCounts {
  uint64_t total = 0;  // re-queues of failed pods
  size_t pods = 0;     // pods restarted at least once
};

// One job's run (workloads with jobs; docs/training-jobs.md#results).
struct JobOutcome {
  // When its gang started (min_member pods together); a job without a gang: its first pod's
  // start. -1: never.
  double start_s = -1;
  double finish_s = -1;        // when its last pod ended (completed or failed); -1: not all did
  double held_gpu_s = 0;       // GPU-seconds its pods held, bound, waiting for their gang
  uint32_t gang_timeouts = 0;  // partial reservations released (engine.gang.mode permit)
  uint32_t evicted_pods = 0;   // its pods evicted by preemption (a gang's: all its running pods)
  double lost_gpu_s = 0;       // GPU-seconds of work lost to evictions (since its checkpoints)
  double admitted_s = -1;      // when its queue first admitted it; -1: never (or not queued)
  uint32_t reclaimed = 0;      // times it was evicted so that another queue reclaimed quota
  // kCompleted: every pod completed; kFailed: one failed for good; kUnschedulable: its gang can
  // never start; kRunning: its gang started and not every pod ended; kPending: not started.
  PodStatus status = PodStatus::kPending;
};

// The jobs' figures of a run (RunSummary::jobs), over the jobs of the workload.
struct JobSummary {
  size_t jobs = 0, gangs = 0, started = 0, completed = 0, failed = 0, unschedulable = 0;
  // Arrival to the start of the whole gang; arrival to the end of its last pod (completed
  // jobs).
  Distribution queue_delay_s, jct_s;
  double gpu_hours_held_waiting = 0;  // GPU-hours bound to pods that waited for their gang
  uint64_t gang_timeouts = 0;
};

// One queue's figures over a run (QueueSummary holds them).
struct QueueUsage {
  double gpu_s = 0;           // GPU-seconds of admitted quota (GPUs x seconds)
  double borrowed_gpu_s = 0;  // ... of them, above its nominal quota
  double peak_borrowed_gpus = 0;
  double waiting_s = 0;        // time with a job waiting for quota
  double share_waiting_s = 0;  // integral of its share of the cohort's GPU quota while waiting
  uint64_t admitted = 0;       // admissions (a workload evicted and admitted again counts twice)
  uint64_t reclaimed = 0;      // its workloads evicted so that another queue could reclaim
  uint64_t reclaims = 0;       // admissions of its own that reclaimed quota
};

// One queue's jobs and quota over a run (RunSummary::queues; docs/training-jobs.md#queues).
struct QueueSummary {
  std::string name, cohort;
  double nominal_gpus = 0;  // its nominal GPU quota (0: it counts no GPUs)
  double fair_share = 0;    // nominal_gpus as a share of its cohort's (1 outside a cohort)
  QueueUsage usage;
  double mean_gpus = 0;                       // admitted GPU quota, time-averaged over the window
  double gpu_share = 0;                       // mean_gpus as a share of its cohort's nominal GPUs
  std::optional<double> share_while_waiting;  // ... averaged over the time it had jobs waiting
  size_t jobs = 0, admitted = 0, started = 0, completed = 0;
  Distribution admission_wait_s;  // arrival (all members) to its first admission
  Distribution queue_delay_s;     // arrival to the start of the whole gang
  Distribution jct_s;             // arrival to the end of its last pod (completed jobs)
  double lost_gpu_hours = 0;      // work its jobs lost to evictions (any cause)
};

// The queues' figures together (RunSummary::queue_totals), or one queue's as a decide: target
// reads it (`fairness[queue:team-a]`; sim/metrics/queue_metrics.h).
struct QueueTotals {
  // The lowest, over queues that had jobs waiting for quota, of their GPU share while waiting
  // over their fair share: below 1, a queue waited while holding less than its nominal share.
  std::optional<double> fairness;
  double borrowed_gpu_hours = 0;  // admitted above nominal quota, from the cohort
  uint64_t reclaimed = 0;         // jobs evicted so that their lender could reclaim its quota
  Distribution admission_wait_s;  // per job: arrival to its first admission
};

// One inference service's requests and replicas over a run (RunSummary::services;
// docs/inference-services.md#results). Requests are expected counts (the approximation's):
// fractional.
struct ServiceSummary {
  std::string name;
  double requests = 0;  // arrived in the window
  double dropped = 0;   // found its replica's queue full (max_queue)
  double unserved = 0;  // arrived while the service had no ready replica
  double lost = 0;      // (dropped + unserved) / requests; 0 without requests
  // Served requests' latency (arrival to response): mean, p50, p95, p99; count = served
  // (rounded), max unset.
  Distribution latency_s;
  // Share of all its requests (dropped and unserved count as missed) answered within the bound of
  // its SLO's highest stated percentile; none without an SLO.
  std::optional<double> within_slo;
  // Whether every stated percentile of the run's latency is within its bound; none without SLO.
  std::optional<bool> slo_met;
  double replicas_mean = 0;       // ready replicas, time-weighted over the window
  uint32_t replicas_peak = 0;     // the most replicas wanted at once (the autoscaler's count)
  uint32_t unplaced_peak = 0;     // the most replicas wanted but not placed at once
  double unplaced_replica_s = 0;  // replica-seconds wanted but not placed
  uint32_t scale_ups = 0, scale_downs = 0;  // the autoscaler's decisions
  uint32_t replica_failures = 0;            // replicas out of memory as their requests' memory grew
  double gpu_hours = 0;                     // GPU-hours its replicas held (their claims)
  // Share of its requests in replica-intervals above the approximation's checked load (0.9).
  double outside_checked = 0;

  double served() const { return requests - dropped - unserved; }
  // GPU-hours per million requests served; none when none was.
  std::optional<double> gpu_hours_per_million() const {
    return served() > 0 ? std::optional<double>(gpu_hours / served() * 1e6) : std::nullopt;
  }
};

// The services' requests together (RunSummary::service_totals).
struct ServiceTotals {
  double requests = 0, dropped = 0, unserved = 0;
  double lost = 0;                   // (dropped + unserved) / requests
  Distribution latency_s;            // over every served request of every service
  std::optional<double> within_slo;  // over the requests of services with an SLO
  size_t services = 0, slo_services = 0, slo_met = 0;
  double gpu_hours = 0;
  std::optional<double> gpu_hours_per_million;  // per million requests served
};

// Preemption's figures (engine.preemption other than never).
struct PreemptionCounts {
  uint64_t preemptors = 0;       // placements that evicted pods
  uint64_t victims = 0;          // pods evicted (a gang's running members all count)
  uint64_t spot_victims = 0;     // ... of them, pods of spot jobs
  uint64_t reclaim_victims = 0;  // ... of them, evicted with their job to reclaim queue quota
  double lost_gpu_hours = 0;     // work lost: done since the victims' last checkpoint
};

struct RunSummary {
  size_t pods = 0, completed = 0, failed = 0, unschedulable = 0, pending_at_end = 0,
         running_at_end = 0;
  double window_start_s = 0, window_end_s = 0;
  double allocation_ratio = 0;     // time-weighted over the window
  double fragmentation_ratio = 0;  // time-weighted fragmented share of the GPU capacity
  std::optional<double> allocation_ratio_at_first_failure;
  std::optional<double> first_failure_s;
  Distribution queue_delay_s, jct_s, slowdown;
  double sm_utilization = 0, memory_utilization = 0;
  std::vector<ModelUsage> per_model;
  // By class name; empty when every pod is in class "default" (no `class:` anywhere).
  std::vector<ClassSummary> per_class;
  size_t slo_pods = 0, slo_met = 0, slo_undecided = 0;
  std::optional<double> slo_attainment;
  double gpu_hours_provisioned = 0, gpu_hours_allocated = 0, cost_usd = 0;
  // The window gpu_hours_provisioned and cost_usd count: the run's own window, or in a compare
  // the common horizon of all its policies (common_horizon.h).
  double cost_window_start_s = 0, cost_window_end_s = 0;
  uint64_t events = 0, placement_attempts = 0;
  std::map<std::string, size_t> not_placed_reasons;  // reason -> pods
  std::optional<FillSummary> fill;                   // fill experiments only
  // Multi-GPU pods on nodes with a known topology: chosen GPUs' pair score over the best the
  // node's topology offers for that GPU count (1 = as well connected as possible).
  Distribution communication_quality;

  // --- capped modes (MPS, interposer; issue 4) ---
  Distribution isolation_error;   // over capped pods that ran (docs/sharing-models.md)
  size_t neighbour_failures = 0;  // failed because of a neighbour (memory held, MPS fault)
  // The other causes of `failed` (docs/results-format.md): its own memory (over its limit, its
  // MIG instance, an overcommitted GPU) and faults (modelled client faults, refused allocations).
  // failed = neighbour_failures + failed_own_memory + failed_faults.
  size_t failed_own_memory = 0, failed_faults = 0;

  // --- restart policy (engine.restart; issue 14) ---
  std::optional<RestartCounts> restarts;

  // --- jobs and gangs (issue 31): workloads with jobs only ---
  std::optional<JobSummary> jobs;
  std::optional<PreemptionCounts> preemption;
  // Per queue of the scenario's `queues:` (none without): quota, borrowing, fairness, waiting.
  std::vector<QueueSummary> queues;
  std::optional<QueueTotals> queue_totals;  // with queues only

  // --- inference services (issue 32): workloads with services only ---
  std::vector<ServiceSummary> services;
  std::optional<ServiceTotals> service_totals;

  // --- the sharing mode's own figures and files (SharingRun::write_results) ---
  ModeResults mode_results;

  // Adds one pod with this final status to the matching count.
  void count(PodStatus status);
};

// One queue's state at a sample time (queues.csv): its admitted GPU quota, the part above its
// nominal quota, and its jobs waiting and admitted.
struct QueueSample {
  double time_s = 0;
  uint32_t queue = 0;  // index into RunSummary::queues
  uint32_t pending = 0, admitted = 0;
  double used_gpus = 0, borrowed_gpus = 0;
};
// queues.csv holds at most this many rows per run: past it, every other sample time is dropped
// and later ones are taken half as often (sim/metrics/bounded_series.h).
inline constexpr size_t kMaxQueueSampleRows = 1'000'000;

// One service's interval at a time (services.csv): its request rate, latency percentiles over
// the interval (none: no request served), and replicas wanted, placed and ready.
struct ServiceSample {
  double time_s = 0;     // the interval's start
  uint32_t service = 0;  // index into RunSummary::services
  double rate = 0;       // mean requests/s over the interval
  std::optional<double> p50, p95, p99;
  double lost = 0;  // share of the interval's requests dropped or unserved
  uint32_t wanted = 0, placed = 0, ready = 0;
};
// services.csv holds at most this many rows per run (as queues.csv).
inline constexpr size_t kMaxServiceSampleRows = 1'000'000;

struct RunResult {
  std::string policy;
  std::string placement;
  std::string sharing;
  uint64_t seed = 0;
  RunSummary summary;
  std::vector<PodOutcome> pods;  // in the workload's order
  ReasonTable reasons;           // the texts PodOutcome::reason names
  std::vector<uint16_t> pod_gpus;
  std::vector<Sample> samples;
  std::vector<FillPoint> fill_curve;           // fill experiments only: one point per arrived pod
  std::vector<JobOutcome> jobs;                // per job of the workload (RunInputs::jobs)
  std::vector<QueueSample> queue_samples;      // with queues: per sample time, one row per queue
  std::vector<ServiceSample> service_samples;  // with services: per interval, one row per service

  // Why pod `pod` failed or was never placed; empty when it did not.
  const std::string& reason_of(size_t pod) const { return reasons[pods[pod].reason]; }
};

}  // namespace slicelab
