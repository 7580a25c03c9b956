// The simulation of one run: the event loop's state and the steps of one pod's life, defined in
// engine.cc (the loop, finishes, failures) and pod_start.cc (placement, start, restarts).
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/engine/arrival_order.h"
#include "sim/engine/bound_gpus.h"
#include "sim/engine/cluster_queues.h"
#include "sim/engine/engine.h"
#include "sim/engine/failure_model.h"
#include "sim/engine/gang_table.h"
#include "sim/engine/gpu_tenant_table.h"
#include "sim/engine/pod_events.h"
#include "sim/engine/pod_request_table.h"
#include "sim/engine/preemption.h"
#include "sim/engine/priority_room.h"
#include "sim/engine/queue_scheduler.h"
#include "sim/engine/retry_shortcut.h"
#include "sim/engine/run_accounting.h"
#include "sim/engine/running_pods.h"
#include "sim/engine/serving_state.h"
#include "sim/engine/static_feasibility.h"
#include "sim/metrics/bounded_series.h"
#include "sim/metrics/reason_table.h"
#include "sim/placement/paper_scorers.h"
#include "sim/sharing/pod_request.h"
#include "sim/sharing/sharing_run.h"
#include "workloads/input_limits.h"

namespace slicelab {

// One run of run_simulation(); not used elsewhere.
class Simulation final : private PlacementAttempt, private RateChangeListener {
 public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  Simulation(const RunInputs& in, PlacementPolicy& placement)
      : in_(in),
        placement_(placement),
        mode_(in.sharing),
        cluster_(in.cluster, in.catalog, in.sharing.capacity_units()),
        rng_(in.seed),
        tenants_(in.sharing, cluster_),
        failures_(in.sharing, cluster_, rng_, reasons_),
        queue_(in.config.backfill),
        restarts_(in.config.fill ? RestartConfig{} : in.config.restart),
        accounting_(cluster_, in.catalog, in.target_pods.empty() ? in.pods : in.target_pods,
                    in.pods.size(), in.config.fill),
        retry_(in.pods.size(), cluster_.node_count()),
        room_(0, cluster_.node_count()) {}
  // A run that ends by an exception closes its feed too, before its outcomes go.
  ~Simulation() {
    if (in_.feed != nullptr) in_.feed->close();
  }
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  RunResult run(const ProgressFn& progress);

 private:
  void prepare();
  void advance(double t);
  void arrive(uint32_t p, uint64_t seq);
  void finish(uint32_t p);
  bool try_place(uint32_t p) override;
  bool attempt(uint32_t p, HeldMember& h);
  bool reserve(uint32_t p, HeldMember& h);
  std::optional<NodeId> explained_schedule(SchedulingCycle& cycle);
  void commit(uint32_t p, const PodRequest& r, NodeId node, std::span<const GpuId> gpus, bool held);
  void unbind(uint32_t p, const PodRequest& r, NodeId node, std::span<const GpuId> gpus, bool held);
  // Gangs (gang_start.cc).
  void gang_arrived(uint32_t job, uint32_t p, uint64_t seq);
  bool place_gang(uint32_t job);
  bool reserve_gang(uint32_t job, bool preempt);
  void unreserve_gang(uint32_t job);
  void unbind_held(uint32_t job);
  bool hold_member(uint32_t job, uint32_t p);
  void start_gang(uint32_t job, bool held);
  void gang_timer(uint32_t job, GangTable::TimerKind kind);
  std::span<const GpuId> held_gpus(const HeldMember& h);
  bool failure_shared_by_shape(uint32_t p) const override;
  // Preemption (pod_eviction.cc).
  uint64_t queue_rank(uint32_t p) const;
  bool preempt_for(uint32_t p);
  std::optional<PreemptionCandidate> find_victims(uint32_t p);
  void set_bound(uint32_t q, bool present);
  bool set_aside_victims_for(uint32_t m);
  void settle_set_aside(bool evict_them);
  void evict(uint32_t v);
  void evict_one(uint32_t v);
  void requeue_evicted();
  void after_queue() {
    if (!evicted_.empty()) requeue_evicted();
    if (quotas_.dirty()) admit_queued();
  }
  // Queues (job_admission.cc).
  void prepare_queues();
  bool held_back(uint32_t p) const;
  void admit_queued();
  void admit_job(uint32_t j);
  void evict_job(uint32_t j);
  void job_pod_done(uint32_t p);
  std::vector<QueueSummary> queue_summaries(std::span<const JobOutcome> jobs);
  std::vector<JobOutcome> job_outcomes();
  void start_work(uint32_t p);
  bool fails_to_start(uint32_t p, const PodRequest& r, std::span<const GpuId> gpus);
  void failed_to_start(uint32_t p, const PodRequest& r, std::span<const GpuId> gpus);
  void restart_in_place(uint32_t p);
  void stop_work(uint32_t p);
  void start_after_reconfiguration(uint32_t p);
  std::optional<std::string> never_fits(uint32_t p);
  void fail_running(uint32_t p, FailureCause cause, const char* reason);
  void release(uint32_t p);
  void release_evicted(uint32_t p);
  void prefetch_event(const PodEvent& next, const PodEvent* after) const;
  void schedule_pending() {
    queue_.schedule(*this, skip_failed_shapes_);
    after_queue();
  }
  void recompute(std::span<const GpuId> gpus);
  // The tenant table changes a pod's rate or error: progress so far accrues at the old values.
  void before_rate_change(uint32_t p) override { settle(p); }
  void rate_changed(uint32_t p) override { schedule_finish(p); }
  void settle(uint32_t p);
  void schedule_finish(uint32_t p);
  void take_sample(double t) {
    accounting_.take_sample(t, running_, static_cast<uint32_t>(queue_.pending().size()));
    if (!quotas_.empty() && queue_series_.wants())
      queue_series_.take([&](std::vector<QueueSample>& rows) { quotas_.sample(t, rows); });
  }
  RunResult assemble_result(size_t next_arrival);
  // Inference services (service_replicas.cc): replica pools started and stopped by each
  // service's count or autoscaler, requests solved per interval on each replica's GPU.
  void prepare_serving();
  double next_serving_s() const;
  void serving_tick();
  void serve_interval();
  void autoscale();
  void activate_replica(uint32_t p, double ready_after_s);
  void retire_replica(uint32_t p);
  void replace_failed_replicas();
  void check_replica_memory(uint32_t q, GpuId g, size_t s, const ReplicaApprox& a);
  bool replica_serves(uint32_t p) const;
  bool inactive_replica(uint32_t p) const {
    return serving_ && p >= arrivals_ && !serving_->pool[p - arrivals_].active;
  }
  void finish_serving(RunResult& result);
  // The pod's workload class (issue 4), whose demands make its load as the rate solver sees it
  // when it starts, and its peak device memory; looked up as it starts (a few classes), not
  // held per pod.
  // Pods share their class's text (SharedText), and the workload does not change during the
  // run, so the same address and length are the same class: the lookup (a string compare per
  // class) runs once per change of text, not twice per start.
  const WorkloadClass* workload_class(uint32_t p) const {
    if (in_.classes == nullptr) return nullptr;
    const std::string_view name = in_.pods[p].workload_class;
    if (!class_memo_.set || name.data() != class_memo_.name.data() ||
        name.size() != class_memo_.name.size()) {
      const auto c = in_.classes->index_of(name);
      class_memo_ = {name, c ? &(*in_.classes)[*c] : nullptr, true};
    }
    return class_memo_.found;
  }
  struct ClassMemo {
    std::string_view name;
    const WorkloadClass* found = nullptr;
    bool set = false;
  };
  mutable ClassMemo class_memo_;
  // The per-pod state that only the event loop reads (requests, arrival order, tenant slots,
  // retry marks), given back before the summary: a million-pod run's peak is otherwise the
  // summary's value arrays on top of all of it. The sharing run keeps a span of the requests
  // that it no longer reads then.
  void free_event_loop_state() {
    req_ = PodRequestTable{};
    static_fit_ = {};
    arrival_order_.clear();
    events_ = PodEvents{};
    tenants_.forget_pods();
    retry_.forget_pods();
    restarts_.forget_pods();
  }

  const RunInputs& in_;
  PlacementPolicy& placement_;
  const SharingMode& mode_;
  ClusterState cluster_;
  Rng rng_;
  GpuTenantTable tenants_;
  ReasonTable reasons_;  // the texts out_[p].reason names
  FailureModel failures_;
  QueueScheduler queue_;
  RestartPolicy restarts_;
  RunAccounting accounting_;
  // A retry only needs the nodes freed since the pod last failed; all others still fail.
  RetryShortcut retry_;
  // Preemption's own log of nodes that gained room: the nodes freed, and the nodes a failed
  // gang attempt gave back after a search saw them held (its fruitless_ cache reads it).
  RetryShortcut room_;
  void node_freed(NodeId n) {
    retry_.node_freed(n);
    if (preempting_) room_.node_freed(n);
  }
  // The sharing mode's own state for this run (MIG: its instances).
  std::unique_ptr<SharingRun> sharing_;
  std::optional<NodeNameFilter> pinned_;  // a snapshot's running pods stay on their nodes
  bool skip_failed_shapes_ = true;

  // Per pod (index into in_.pods): its request, its outcome, its GPUs for the result.
  PodRequestTable req_;
  // never_fits_reason's answer per request record, which depends on the request alone (a
  // million-pod run has a handful of records): kUnknown until first asked.
  enum class StaticFit : uint8_t { kUnknown, kFits, kNever };
  std::vector<StaticFit> static_fit_;
  std::vector<PodOutcome> out_;
  BoundGpus bound_gpus_;
  RunningPods live_;  // per running pod, by its slot in the tenant table
  ArrivalOrder arrival_order_;

  // The pods before feed_final_ are final (completed); those before feed_published_ were
  // published to in_.feed, in steps of kFeedStep.
  static constexpr size_t kFeedStep = 4096;
  void advance_feed();
  size_t feed_final_ = 0;
  size_t feed_published_ = 0;

  PodEvents events_;
  std::vector<GpuId> pick_;  // the GPUs placement picks for one pod
  GangTable gangs_;          // empty without gangs or queues (or in a fill experiment)
  // Quota admission (engine config's queues): per job, its pods not done yet once admitted,
  // its first admission and its evictions to reclaim quota.
  ClusterQueues quotas_;
  std::vector<ClusterQueues::Step> steps_;
  std::vector<uint32_t> job_left_;
  std::vector<double> admitted_s_;
  std::vector<uint32_t> job_reclaims_;
  double quotas_start_s_ = 0;
  BoundedSeries<QueueSample> queue_series_{1, kMaxQueueSampleRows};
  std::vector<GpuId> held_gpus_;     // scratch: a held member's GPUs
  std::vector<double> member_gpus_;  // scratch: a gang's members' GPUs
  // Preemption's state, held only when engine.preemption allows it: per node its running pods,
  // per pod the work saved at its last checkpoint and its arrival rank (when the workload is not
  // in arrival order), per job what evictions cost it, the pods evicted in the current pass.
  bool preempting_ = false;
  // A running pod as preemption reads it: what removing it frees on its node.
  struct NodePod {
    uint32_t pod;
    int32_t priority;
    int32_t units;  // GPU capacity units, all its GPUs
    int64_t cpu_milli, memory_mib;
  };
  std::vector<std::vector<NodePod>> node_pods_;
  // Running pods per priority: a pod with nothing below it cannot preempt (no search at all).
  std::map<int, uint32_t> running_priorities_;
  PriorityRoom room_by_priority_;  // per node, what its pods below each priority would free
  // Searches that found no candidate: (request record, priority) -> nodes freed then.
  std::unordered_map<uint64_t, uint32_t> fruitless_;
  // A fruitless search was remembered during the gang attempt under way (its reserved members
  // held room that unreserving gives back).
  bool searched_while_reserved_ = false;
  void pod_runs_on(NodeId node, uint32_t p);
  void pod_leaves(NodeId node, uint32_t p);
  std::vector<double> resume_;
  std::vector<uint32_t> rank_;
  struct JobEvictions {
    uint32_t pods = 0;
    double lost_gpu_s = 0;
  };
  std::vector<JobEvictions> job_evictions_;
  std::vector<uint32_t> evicted_;
  std::vector<uint32_t> tentative_;              // victims set aside while a gang is placed
  std::vector<PreemptionCandidate> candidates_;  // the first `found` are this search's
  std::vector<NodeId> search_nodes_;             // scratch: the nodes a narrowed search visits
  // Per node, its last dry run: for which request and priority, at which node version, and its
  // answer.
  struct VictimsMemo {
    uint64_t key = UINT64_MAX;
    uint64_t version = 0;
    uint64_t epoch = 0;
    bool candidate = false;
    std::vector<PreemptionVictim> victims;
  };
  std::vector<VictimsMemo> victims_memo_;
  // Per node, moves when its running pods change without a bind or unbind (a held gang member
  // starts, a pod fails or restarts in place): the memo's answers then go stale.
  std::vector<uint64_t> node_epoch_;
  bool evaluate_node(NodeId n, const SchedulingCycle& cycle, int priority, uint64_t key,
                     std::vector<PreemptionVictim>& victims);
  std::vector<PreemptionVictim> on_node_;  // scratch of one node's dry run
  std::vector<NodeId> one_node_;           // scratch of the filters' one-node list
  PreemptionCounts preemption_;
  // The pods that arrive by themselves: all but the services' replica pools, which follow them.
  size_t arrivals_ = 0;
  std::unique_ptr<ServingState> serving_;  // with services only
  double serving_stop_ = kInf;             // the run's end: services serve until then
  double now_ = 0;
  uint32_t running_ = 0;
};

}  // namespace slicelab
