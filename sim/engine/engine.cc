// The event loop and the order of the steps of one pod's life; the state of each step lives in
// its own part (docs/simulator.md has the map): the tenant table and its rates, the failure
// model, the queue scheduler, the accounting.
#include "sim/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/engine/arrival_order.h"
#include "sim/engine/bound_gpus.h"
#include "sim/engine/failure_model.h"
#include "sim/engine/gpu_tenant_table.h"
#include "sim/engine/pod_events.h"
#include "sim/engine/pod_request_table.h"
#include "sim/engine/queue_scheduler.h"
#include "sim/engine/retry_shortcut.h"
#include "sim/engine/run_accounting.h"
#include "sim/engine/running_pods.h"
#include "sim/engine/static_feasibility.h"
#include "sim/metrics/reason_table.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/pod_request.h"
#include "sim/sharing/sharing_run.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class Simulation final : private PlacementAttempt, private RateChangeListener {
 public:
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
        retry_(in.pods.size(), cluster_.node_count()) {}

  RunResult run(const ProgressFn& progress);

 private:
  void prepare();
  void advance(double t);
  void arrive(uint32_t p, uint64_t seq);
  void finish(uint32_t p);
  bool try_place(uint32_t p) override;
  void start_work(uint32_t p);
  void start_after_reconfiguration(uint32_t p);
  std::optional<std::string> never_fits(uint32_t p);
  void fail_running(uint32_t p, FailureCause cause, const char* reason);
  void release(uint32_t p);
  void schedule_pending() { queue_.schedule(*this, skip_failed_shapes_); }
  void recompute(std::span<const GpuId> gpus);
  // The tenant table changes a pod's rate or error: progress so far accrues at the old values.
  void before_rate_change(uint32_t p) override { settle(p); }
  void rate_changed(uint32_t p) override { schedule_finish(p); }
  void settle(uint32_t p);
  void schedule_finish(uint32_t p);
  void take_sample(double t) {
    accounting_.take_sample(t, running_, static_cast<uint32_t>(queue_.pending().size()));
  }
  RunResult assemble_result(size_t next_arrival);
  // The pod's workload class (issue 4), whose demands make its load as the rate solver sees it
  // when it starts, and its peak device memory; looked up as it starts (a few classes), not
  // held per pod.
  const WorkloadClass* workload_class(uint32_t p) const {
    if (in_.classes == nullptr) return nullptr;
    const auto c = in_.classes->index_of(in_.pods[p].workload_class);
    return c ? &(*in_.classes)[*c] : nullptr;
  }
  // The per-pod state that only the event loop reads (requests, arrival order, tenant slots,
  // retry marks), given back before the summary: a million-pod run's peak is otherwise the
  // summary's value arrays on top of all of it. The sharing run keeps a span of the requests
  // that it no longer reads then.
  void free_event_loop_state() {
    req_ = PodRequestTable{};
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
  // The sharing mode's own state for this run (MIG: its instances).
  std::unique_ptr<SharingRun> sharing_;
  std::optional<NodeNameFilter> pinned_;  // a snapshot's running pods stay on their nodes
  bool skip_failed_shapes_ = true;

  // Per pod (index into in_.pods): its request, its outcome, its GPUs for the result.
  PodRequestTable req_;
  std::vector<PodOutcome> out_;
  BoundGpus bound_gpus_;
  RunningPods live_;  // per running pod, by its slot in the tenant table
  ArrivalOrder arrival_order_;

  PodEvents events_;
  std::vector<GpuId> pick_;  // the GPUs placement picks for one pod
  double now_ = 0;
  uint32_t running_ = 0;
};

void Simulation::prepare() {
  const auto& pods = in_.pods;
  const size_t n = pods.size();
  out_.resize(n);
  bound_gpus_.prepare(pods, out_);
  // GPU shapes as small tags, for policies that group like shapes on a node (gpu-clustering).
  const int max_gpus = cluster_.max_gpus_per_node();
  req_.build(n, [&](size_t i) {
    PodRequest r = make_pod_request(pods[i], mode_, in_.catalog);
    r.shape_tag = clustering_tag(r, mode_.capacity_units(), max_gpus);
    return r;
  });
  tenants_.prepare(n);
  failures_.prepare();
  queue_.prepare(req_.view());
  arrival_order_.prepare(pods);
  restarts_.prepare(n, arrival_order_);
  pick_.resize(static_cast<size_t>(std::max(cluster_.max_gpus_per_node(), 1)));

  cluster_.track_shape_tags(2 * static_cast<size_t>(max_gpus + 1));

  sharing_ = mode_.start_run(RunSetup{cluster_, in_.catalog, pods, req_.view()});
  // Pinned pods of one shape do not fit alike: each has its own node.
  skip_failed_shapes_ = sharing_->equal_requests_fit_alike() && in_.pinned.empty();
  // The retry shortcut first: it narrows the node set at no cost.
  RunPlugins plugins = sharing_->plugins();
  plugins.pre_filters.insert(plugins.pre_filters.begin(), &retry_);
  if (!in_.pinned.empty())
    plugins.filters.insert(plugins.filters.begin(), &pinned_.emplace(in_.pinned, n));
  placement_.attach(plugins);
}

void Simulation::advance(double t) {
  accounting_.advance(t, *sharing_);
  now_ = t;
}

void Simulation::settle(uint32_t p) {
  live_[tenants_.slot(p)].progress.settle(now_, tenants_.rate(p), tenants_.error(p));
}

void Simulation::schedule_finish(uint32_t p) {
  const uint32_t slot = tenants_.slot(p);
  events_.schedule(slot, live_[slot].progress.finish_s(now_, tenants_.rate(p)));
}

// The GPUs' tenants changed: their rates are solved anew, and what the GPUs deliver with them.
void Simulation::recompute(std::span<const GpuId> gpus) {
  tenants_.recompute(gpus, *sharing_, *this);
  for (const GpuId g : tenants_.recomputed()) {
    const GpuUsage u = tenants_.usage(g);
    accounting_.set_gpu_usage(g, u.sm, u.memory);
  }
}

void Simulation::fail_running(uint32_t p, FailureCause cause, const char* reason) {
  settle(p);
  events_.cancel(tenants_.slot(p));
  PodOutcome& o = out_[p];
  o.status = PodStatus::kFailed;
  o.finish_s = now_;
  o.failure = cause;
  o.reason = reasons_.add(reason);
  release(p);
  restarts_.failed(p, o, events_);
}

// Forced inline: finish() runs once per pod on the event loop, and as a call this measured
// 5-10% slower on bench/sim_throughput's BM_BestFitWholeCard (noisy; inline matches before).
[[gnu::always_inline]] inline void Simulation::release(uint32_t p) {
  --running_;
  const PodRequest& r = live_[tenants_.slot(p)].bound;
  const auto gpus = tenants_.gpus_of(p);
  const NodeId node = static_cast<NodeId>(out_[p].node);
  cluster_.unbind(node, gpus, r);
  sharing_->release(p, gpus);
  accounting_.node_changed(node);
  retry_.node_freed(node);
  accounting_.allocation_changed(
      cluster_.model(node),
      -(static_cast<double>(r.claim_units) / static_cast<double>(cluster_.capacity_units()) *
        static_cast<double>(r.gpu_count)));
  for (const GpuId g : gpus) tenants_.remove(g, p);
  recompute(gpus);
  out_[p].isolation_error = live_[tenants_.slot(p)].progress.isolation_error();
  tenants_.retire(p);
}

// Schedule (the placement plugins), bind, then the failure checks; a pod that passes them runs
// now or after its GPUs are prepared.
bool Simulation::try_place(uint32_t p) {
  if (!retry_.worth_trying(p)) return false;  // nothing freed since it last failed
  accounting_.placement_attempted();
  // A copy: the table's record is shared by the pods with equal requests, and placement may
  // change the claim (MIG).
  PodRequest r = req_[p];
  SchedulingCycle cycle{cluster_, r, p, now_, rng_, 0, sharing_.get()};
  const auto node = placement_.schedule(cycle, pick_);
  if (!node) {
    retry_.attempt_failed(p);
    accounting_.placement_failed();
    return false;
  }
  const auto gpus = std::span<const GpuId>(pick_).first(static_cast<size_t>(r.gpu_count));
  sharing_->pod_left_queue(p);
  cluster_.bind(*node, gpus, r);
  accounting_.pod_bound(*node, gpus);
  PodOutcome& o = out_[p];
  o.node = static_cast<int32_t>(*node);
  o.start_s = now_;
  bound_gpus_.bind(o, cluster_.first_gpu(*node), gpus);
  const uint16_t model = cluster_.model(*node);
  const double speed = in_.config.speed_scaling && r.gpu_count > 0
                           ? in_.catalog.models()[model].relative_speed
                           : 1.0;
  const WorkloadClass* wc = workload_class(p);
  const uint32_t slot = tenants_.start(p, gpus, tenant_load(r, wc, mode_.capacity_units()),
                                       static_cast<double>(r.gpu_milli) / 1000.0, speed);
  live_.start(slot, r);
  o.solo_s = in_.pods[p].duration_s / speed;
  const double claim_share =
      static_cast<double>(r.claim_units) / static_cast<double>(cluster_.capacity_units());
  const int64_t peak_mib = peak_memory_mib(in_.pods[p], wc, r);
  const bool refused = failures_.fails_allocation(r, o);
  const bool own = !refused && failures_.fails_own_limit(peak_mib, r, gpus, o);
  if (refused || own || failures_.fails_for_memory(p, r, gpus, *sharing_, o)) {
    // Bound but cannot run: unbind it, then let the reserve plugins give back what they took
    // (they may restore the request's claim, which unbinding still needs).
    tenants_.retire(p);
    cluster_.unbind(*node, gpus, r);
    placement_.unreserve(cycle, *node, gpus);
    accounting_.node_changed(*node);
    o.status = PodStatus::kFailed;
    o.finish_s = now_;
    restarts_.failed(p, o, events_);
    // It never became a tenant, so only its neighbours are drawn.
    if (own)
      failures_.propagate_fault(
          gpus, [&](GpuId g) { return tenants_.tenants(g); },
          [&](uint32_t victim) {
            if (out_[victim].status == PodStatus::kRunning)
              fail_running(victim, FailureCause::kNeighbourFault, "MPS neighbour fault");
          });
    return true;
  }
  o.status = PodStatus::kRunning;
  ++running_;
  accounting_.allocation_changed(model, claim_share * static_cast<double>(r.gpu_count));
  if (const double delay = sharing_->start_delay_s(p); delay > 0) {
    // Its GPUs are being prepared (MIG: re-partitioned): it holds them now and starts when that
    // is done.
    o.start_s = now_ + delay;
    events_.schedule(slot, o.start_s, true);
    return true;
  }
  start_work(p);
  return true;
}

void Simulation::start_after_reconfiguration(uint32_t p) {
  start_work(p);
  // The re-partitioned GPUs take new pods again.
  retry_.node_freed(static_cast<NodeId>(out_[p].node));
  schedule_pending();
}

// The pod becomes a tenant of its GPUs and the rates of those GPUs are solved anew.
void Simulation::start_work(uint32_t p) {
  // In a fill experiment nothing departs: the finish is never reached.
  LiveProgress& prog = live_[tenants_.slot(p)].progress;
  prog.remaining = in_.config.fill ? kInf : in_.pods[p].duration_s;
  prog.last_update = now_;
  if (req_[p].gpu_count == 0) {
    tenants_.run_alone(p);
    schedule_finish(p);
    return;
  }
  const auto gpus = tenants_.gpus_of(p);
  for (const GpuId g : gpus) tenants_.add(g, p);
  recompute(gpus);
}

std::optional<std::string> Simulation::never_fits(uint32_t p) {
  auto why = never_fits_reason(in_.cluster, in_.catalog, req_[p]);
  if (!why && req_[p].gpu_count > 0) why = sharing_->never_fits(p);
  if (why) sharing_->pod_left_queue(p);
  return why;
}

void Simulation::arrive(uint32_t p, uint64_t seq) {
  if (auto why = never_fits(p)) {
    out_[p].status = PodStatus::kUnschedulable;
    out_[p].reason = reasons_.add("no node could ever hold it: " + *why);
  } else if (!in_.config.fill) {
    queue_.arrive(p, in_.pods[p].priority, seq, *this, skip_failed_shapes_);
    return;
  } else if (!try_place(p)) {
    out_[p].status = PodStatus::kUnschedulable;
    out_[p].reason = reasons_.add("no room when it arrived (fill experiment: one attempt)");
  }
  if (in_.config.fill) {
    // Placed, then out of memory: its demand was not served either.
    const PodSpec& spec = in_.pods[p];
    accounting_.fill_arrival(
        spec.gpu_count * static_cast<double>(spec.gpu_milli) / 1000.0,
        out_[p].status != PodStatus::kUnschedulable && out_[p].status != PodStatus::kFailed);
  }
}

void Simulation::finish(uint32_t p) {
  settle(p);
  PodOutcome& o = out_[p];
  o.status = PodStatus::kCompleted;
  o.finish_s = now_;
  release(p);
  schedule_pending();
}

RunResult Simulation::run(const ProgressFn& progress) {
  prepare();
  const auto& pods = in_.pods;
  const size_t n = pods.size();
  double t0 = n > 0 ? pods[arrival_order_[0]].arrival_s : 0.0;
  if (in_.config.until_s) t0 = std::min(t0, *in_.config.until_s);
  now_ = t0;
  accounting_.start_at(t0);
  const double until = in_.config.until_s.value_or(kInf);
  // Without `until`, queueing can carry a run far past its last arrival; the simulation horizon
  // bounds it (and so its samples), and what is unfinished then is reported as such.
  const double stop = std::min(until, kHorizonS);
  const double interval = in_.config.sample_interval_s;
  double next_sample = interval > 0 ? t0 : kInf;
  size_t next_arrival = 0;
  const uint64_t total_work = 2 * static_cast<uint64_t>(n);
  uint64_t done = 0;

  for (;;) {
    const PodEvent* next = events_.next();
    const double t_finish = next == nullptr ? kInf : next->time;
    const double t_arrival = next_arrival < n ? pods[arrival_order_[next_arrival]].arrival_s : kInf;
    const double t_event = std::min(t_finish, t_arrival);
    if (t_event == kInf) break;
    // Samples fall between events; one at time t sees the state after all events at t.
    while (next_sample < t_event && next_sample <= stop) {
      advance(next_sample);
      take_sample(next_sample);
      next_sample += interval;
    }
    if (t_event > stop) break;
    advance(t_event);
    accounting_.event_done();
    if (t_finish <= t_arrival) {
      const PodEvent e = *next;
      events_.pop();
      if (e.requeue)  // a failed pod's back-off is over: it waits where it first arrived
        queue_.arrive(e.slot, pods[e.slot].priority, restarts_.restarted(e.slot, out_[e.slot]),
                      *this, skip_failed_shapes_);
      else if (e.starts)
        start_after_reconfiguration(tenants_.pod_in(e.slot));
      else
        finish(tenants_.pod_in(e.slot));
    } else {
      arrive(arrival_order_[next_arrival], next_arrival);
      ++next_arrival;
    }
    if (progress && (++done & 0x3fff) == 0)
      progress(std::min(1.0, static_cast<double>(done) / static_cast<double>(total_work)));
  }
  if (until != kInf) {
    while (next_sample <= until) {
      advance(next_sample);
      take_sample(next_sample);
      next_sample += interval;
    }
    advance(until);
  }
  const auto& samples = accounting_.samples();
  if (interval > 0 && (samples.empty() || samples.back().time_s < now_)) take_sample(now_);
  RunResult result = assemble_result(next_arrival);
  if (progress) progress(1.0);
  return result;
}

// The run's results from the per-pod state at its end: outcomes (with the reasons of pods
// that never ran), their GPUs, isolation errors, the samples and the summary.
RunResult Simulation::assemble_result(size_t next_arrival) {
  const size_t n = in_.pods.size();
  const uint32_t still_pending =
      reasons_.add(fmt::format("still pending when the run ended at {:g}s", now_));
  queue_.pending().for_each([&](uint32_t p) { out_[p].reason = still_pending; });
  const uint32_t arrives_after =
      reasons_.add(fmt::format("arrives after the run ended at {:g}s", now_));
  for (size_t k = next_arrival; k < n; ++k) out_[arrival_order_[k]].reason = arrives_after;

  RunResult result;
  result.seed = in_.seed;
  result.samples = accounting_.take_samples();
  result.pod_gpus = bound_gpus_.take(out_);
  // Those still running; the others' errors were kept as they left their GPUs.
  for (uint32_t p = 0; p < n; ++p) {
    if (out_[p].status != PodStatus::kRunning) continue;
    settle(p);
    out_[p].isolation_error = live_[tenants_.slot(p)].progress.isolation_error();
  }
  free_event_loop_state();
  result.summary = accounting_.summarize(in_.pods, out_, reasons_, *sharing_);
  result.summary.restarts = restarts_.counts();
  result.fill_curve = accounting_.take_fill_curve();
  result.pods = std::move(out_);
  result.reasons = std::move(reasons_);
  return result;
}

}  // namespace

RunResult run_simulation(const RunInputs& in, PlacementPolicy& placement,
                         const ProgressFn& progress) {
  Simulation sim(in, placement);
  RunResult r = sim.run(progress);
  r.placement = placement.describe();
  r.sharing = in.sharing.describe();
  return r;
}

}  // namespace slicelab
