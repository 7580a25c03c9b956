// The event loop and the order of the steps of one pod's life; the state of each step lives in
// its own part (docs/simulator.md has the map): the tenant table and its rates, the failure
// model, the queue scheduler, the accounting.
#include "sim/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/engine/simulation.h"
#include "sim/metrics/job_summary.h"
#include "sim/metrics/queue_metrics.h"
#include "workloads/input_error.h"

namespace slicelab {

void Simulation::prepare() {
  const auto& pods = in_.pods;
  const size_t n = pods.size();
  out_.resize(n);
  bound_gpus_.prepare(pods, out_);
  if (in_.feed != nullptr) in_.feed->open({out_, bound_gpus_.slots()});
  // GPU shapes as small tags, for policies that group like shapes on a node (gpu-clustering).
  const int max_gpus = cluster_.max_gpus_per_node();
  req_.build(n, [&](size_t i) {
    PodRequest r = make_pod_request(pods[i], mode_, in_.catalog);
    r.shape_tag = clustering_tag(r, mode_.capacity_units(), max_gpus);
    return r;
  });
  static_fit_.assign(req_.distinct(), StaticFit::kUnknown);
  tenants_.prepare(n);
  failures_.prepare();
  queue_.prepare(req_.view());
  arrivals_ =
      in_.services != nullptr && !in_.services->empty() ? in_.services->first_replica_pod() : n;
  arrival_order_.prepare(pods, arrivals_);
  restarts_.prepare(n, arrival_order_);
  const bool queued =
      !in_.config.queues.empty() && in_.jobs != nullptr && !in_.jobs->empty() && !in_.config.fill;
  if (in_.jobs != nullptr && (in_.jobs->has_gangs() || queued) && !in_.config.fill)
    gangs_.prepare(*in_.jobs);
  if (queued) prepare_queues();
  if (arrivals_ < n) prepare_serving();
  preempting_ = in_.config.preemption != PreemptionPolicy::kNever && !in_.config.fill;
  // Reclaiming quota evicts jobs: what they lose and where they resume is held as for
  // preemption.
  const bool reclaiming =
      queued &&
      std::any_of(in_.config.queues.queues.begin(), in_.config.queues.queues.end(),
                  [](const ClusterQueueSpec& q) { return q.reclaim != ReclaimPolicy::kNever; });
  if (preempting_ || reclaiming) {
    resume_.assign(n, 0.0);
    if (in_.jobs != nullptr) job_evictions_.assign(in_.jobs->size(), JobEvictions{});
  }
  if (preempting_) {
    node_pods_.resize(cluster_.node_count());
    room_by_priority_.prepare(pods, cluster_.node_count());
    victims_memo_.resize(cluster_.node_count());
    node_epoch_.assign(cluster_.node_count(), 0);
    if (arrival_order_.reordered()) {
      rank_.resize(n);
      for (size_t k = 0; k < n; ++k) rank_[arrival_order_[k]] = static_cast<uint32_t>(k);
    }
  }
  pick_.resize(static_cast<size_t>(std::max(cluster_.max_gpus_per_node(), 1)));

  cluster_.track_shape_tags(2 * static_cast<size_t>(max_gpus + 1));

  sharing_ = mode_.start_run(RunSetup{cluster_, in_.catalog, pods, req_.view()});
  // Pinned pods of one shape do not fit alike: each has its own node.
  skip_failed_shapes_ = sharing_->equal_requests_fit_alike() && in_.pinned.empty();
  // The retry shortcut first: it narrows the node set at no cost.
  RunPlugins plugins = sharing_->plugins();
  // Preemption's dry run removes pods from the cluster's state only: a mode that keeps its own
  // placement state (its filters, its reserve plugins: MIG, HAMi, DRA, vGPU) would not see them
  // go, and no pod could ever preempt.
  if (preempting_ && (!plugins.reserves.empty() || !plugins.filters.empty()))
    throw InputError(fmt::format(
        "engine.preemption: sharing mode {} keeps placement state of its own, which preemption "
        "cannot see yet (docs/training-jobs.md#preemption); use preemption: never with it",
        mode_.describe()));
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
  const double t = live_[slot].progress.finish_s(now_, tenants_.rate(p));
  // A service's replica has no end of its own: no event, rather than one that never comes up
  // (each rate change would push another).
  if (t == kInf) return events_.cancel(slot);
  events_.schedule(slot, t);
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
  if (preempting_) ++node_epoch_[static_cast<size_t>(o.node)];  // no longer a victim
  o.reason = reasons_.add(reason);
  if (restarts_.in_place(o)) {
    --running_;
    stop_work(p);
    failures_.set_idle(p, live_[tenants_.slot(p)].bound, tenants_.gpus_of(p), *sharing_, 1);
  } else {
    release(p);
  }
  restarts_.failed(p, o, tenants_.slot(p), events_);
  if (!quotas_.empty()) job_pod_done(p);
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
  node_freed(node);
  accounting_.allocation_changed(
      cluster_.model(node),
      -(static_cast<double>(r.claim_units) / static_cast<double>(cluster_.capacity_units()) *
        static_cast<double>(r.gpu_count)));
  if (preempting_) pod_leaves(node, p);
  stop_work(p);
  tenants_.retire(p);
}

// release() is inlined into this file's callers; eviction (pod_eviction.cc) calls it here.
void Simulation::release_evicted(uint32_t p) {
  release(p);
}

// It leaves its GPUs' tenants; it may stay bound (a restart in place: it holds its devices).
[[gnu::always_inline]] inline void Simulation::stop_work(uint32_t p) {
  const auto gpus = tenants_.gpus_of(p);
  for (const GpuId g : gpus) tenants_.remove(g, p);
  recompute(gpus);
  out_[p].isolation_error = live_[tenants_.slot(p)].progress.isolation_error();
}

// While one event runs, the memory the next finish will touch is fetched: at 10,000 nodes its
// pod's, slot's, node's and GPUs' records are rarely in cache, and a finish otherwise waits for
// them one after another (docs/performance.md, "Sixth round"). In two steps, so that no hint
// waits on memory either: the event after next gets its slot's state fetched, the next one (its
// slot's state fetched one event ago) the records its slot names. Only hints: an event may be
// stale, or come after an arrival or a push.
void Simulation::prefetch_event(const PodEvent& next, const PodEvent* after) const {
  if (after != nullptr && after->kind() != PodEvent::kRequeue && after->slot < tenants_.slots()) {
    tenants_.prefetch_slot(after->slot);
    live_.prefetch(after->slot);
  }
  if (next.kind() == PodEvent::kRequeue || next.slot >= tenants_.slots()) return;
  const uint32_t p = tenants_.pod_in(next.slot);
  if (p < out_.size()) prefetch_for_write(&out_[p]);
  const auto gpus = tenants_.prefetch_leave(next.slot);
  if (gpus.empty()) return;
  const NodeId node = cluster_.node_of(gpus.front());
  cluster_.prefetch_change(node, gpus);
  accounting_.prefetch_change(node, gpus);
  if (p < out_.size()) sharing_->prefetch_release(p, node, gpus);
}

std::optional<std::string> Simulation::never_fits(uint32_t p) {
  // The reason's text is built only for the (rare) pods that never fit; the others cost a
  // lookup by their request record.
  std::optional<std::string> why;
  StaticFit& fit = static_fit_[req_.record_of(p)];
  if (fit != StaticFit::kFits) {
    why = never_fits_reason(in_.cluster, in_.catalog, req_[p]);
    fit = why ? StaticFit::kNever : StaticFit::kFits;
  }
  if (!why && req_[p].gpu_count > 0) why = sharing_->never_fits(p);
  if (why) sharing_->pod_left_queue(p);
  return why;
}

void Simulation::arrive(uint32_t p, uint64_t seq) {
  if (!gangs_.empty()) {
    const uint32_t j = in_.jobs->job_of(p);
    if (j != JobTable::kNoJob && ((*in_.jobs)[j].gang() || quotas_.holds(j)))
      return gang_arrived(j, p, seq);
  }
  if (auto why = never_fits(p)) {
    out_[p].status = PodStatus::kUnschedulable;
    out_[p].reason = reasons_.add("no node could ever hold it: " + *why);
  } else if (!in_.config.fill) {
    queue_.arrive(p, in_.pods[p].priority, seq, *this, skip_failed_shapes_);
    after_queue();
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
  if (!quotas_.empty()) job_pod_done(p);
  if (in_.feed != nullptr && p == feed_final_) advance_feed();
  schedule_pending();
}

void Simulation::advance_feed() {
  // Replica pods are never final while the run goes on: a scaled-down one may start again.
  const size_t n = arrivals_;
  while (feed_final_ < n && out_[feed_final_].status == PodStatus::kCompleted &&
         out_[feed_final_].reason == ReasonTable::kNone)
    ++feed_final_;
  if (feed_final_ - feed_published_ >= kFeedStep || feed_final_ == n) {
    in_.feed->publish(feed_final_);
    feed_published_ = feed_final_;
  }
}

RunResult Simulation::run(const ProgressFn& progress) {
  prepare();
  const auto& pods = in_.pods;
  const size_t n = arrivals_;
  double t0 = n > 0 ? pods[arrival_order_[0]].arrival_s : 0.0;
  if (serving_) t0 = std::min(t0, 0.0);  // request rates are on the run's clock from 0
  if (in_.config.until_s) t0 = std::min(t0, *in_.config.until_s);
  now_ = t0;
  accounting_.start_at(t0);
  const double until = in_.config.until_s.value_or(kInf);
  // Without `until`, queueing can carry a run far past its last arrival; the simulation horizon
  // bounds it (and so its samples), and what is unfinished then is reported as such.
  const double stop = std::min(until, kHorizonS);
  serving_stop_ = stop;
  if (serving_) serving_->next_interval_s = serving_->next_sync_s = t0;
  const double interval = in_.config.sample_interval_s;
  double next_sample = interval > 0 ? t0 : kInf;
  size_t next_arrival = 0;
  const uint64_t total_work = 2 * static_cast<uint64_t>(n);
  uint64_t done = 0;

  for (;;) {
    const PodEvent* next = events_.next();
    const double t_finish = next == nullptr ? kInf : next->time;
    const double t_arrival = next_arrival < n ? pods[arrival_order_[next_arrival]].arrival_s : kInf;
    // Partial gangs' timeouts (engine.gang.mode permit): after the finishes of their time,
    // before its arrivals.
    const double t_gang = gangs_.empty() ? kInf : gangs_.next_timer();
    // The services' next interval or autoscaler sync: after the other events of its time.
    const double t_serve = serving_ ? next_serving_s() : kInf;
    const double t_event = std::min({t_finish, t_arrival, t_gang, t_serve});
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
    if (t_serve < t_finish && t_serve < t_arrival && t_serve < t_gang) {
      serving_tick();
    } else if (t_gang < t_finish && t_gang <= t_arrival) {
      const auto [job, kind] = gangs_.pop_timer();
      gang_timer(job, kind);
    } else if (t_finish <= t_arrival) {
      const PodEvent e = *next;
      events_.pop();
      // next() drops stale events now rather than at the loop's top: the hint is then for the
      // next live one (an event stale now stays stale).
      if (const PodEvent* ahead = events_.next()) prefetch_event(*ahead, events_.peek_second());
      if (e.kind() == PodEvent::kRequeue) {      // back-off over: it waits where it first arrived
        if (inactive_replica(e.slot)) continue;  // scaled down during its back-off
        queue_.arrive(e.slot, pods[e.slot].priority, restarts_.restarted(e.slot, out_[e.slot]),
                      *this, skip_failed_shapes_);
        after_queue();
      } else if (e.kind() == PodEvent::kRestart)
        restart_in_place(tenants_.pod_in(e.slot));
      else if (e.kind() == PodEvent::kStart)
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
  // Before any outcome changes for the result (gpu_begin moves, reasons are set).
  if (in_.feed != nullptr) in_.feed->close();
  const size_t n = in_.pods.size();
  const uint32_t still_pending =
      reasons_.add(fmt::format("still pending when the run ended at {:g}s", now_));
  queue_.pending().for_each([&](uint32_t p) {
    // A gang's member stays queued until a pass drops it after its gang started it.
    if (out_[p].status == PodStatus::kPending) out_[p].reason = still_pending;
  });
  if (!gangs_.empty()) {
    // Members bound and waiting for the rest of their gang.
    for (uint32_t j = 0; j < gangs_.size(); ++j) {
      const GangTable::Job& g = gangs_[j];
      if (g.held.empty()) continue;
      const uint32_t why = reasons_.add(
          fmt::format("bound, waiting for its gang ({} of {} bound) when the run ended at {:g}s",
                      g.held.size(), (*in_.jobs)[j].min_member, now_));
      for (const HeldMember& h : g.held) out_[h.pod].reason = why;
    }
    const uint32_t backing_off = reasons_.add(
        fmt::format("its gang was backing off after a timeout when the run ended at {:g}s", now_));
    for (uint32_t j = 0; j < gangs_.size(); ++j)
      for (const uint32_t m : gangs_[j].backing_off) out_[m].reason = backing_off;
  }
  const uint32_t arrives_after =
      reasons_.add(fmt::format("arrives after the run ended at {:g}s", now_));
  for (size_t k = next_arrival; k < arrivals_; ++k) out_[arrival_order_[k]].reason = arrives_after;

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
  // Replica pods are the services' (their own block): the pod figures are the workload's own.
  result.summary = accounting_.summarize(in_.pods.first(arrivals_),
                                         std::span<const PodOutcome>(out_).first(arrivals_),
                                         reasons_, *sharing_);
  if (serving_) finish_serving(result);
  result.summary.restarts = restarts_.counts();
  if (!resume_.empty()) result.summary.preemption = preemption_;
  result.fill_curve = accounting_.take_fill_curve();
  result.jobs = job_outcomes();
  if (in_.jobs != nullptr && !in_.jobs->empty())
    result.summary.jobs = summarize_jobs(*in_.jobs, result.jobs);
  result.summary.queues = queue_summaries(result.jobs);
  result.queue_samples = queue_series_.release();
  if (!result.summary.queues.empty()) {
    std::vector<double> waits;
    for (uint32_t j = 0; j < result.jobs.size(); ++j)
      if (quotas_.holds(j) && result.jobs[j].admitted_s >= 0)
        waits.push_back(result.jobs[j].admitted_s - (*in_.jobs)[j].arrival_s);
    result.summary.queue_totals = queue_totals(result.summary.queues, waits);
  }
  // The replica pools are reported per service (summary.services), not as pods.
  out_.resize(arrivals_);
  result.pods = std::move(out_);
  result.reasons = std::move(reasons_);
  return result;
}

RunResult run_simulation(const RunInputs& in, PlacementPolicy& placement,
                         const ProgressFn& progress) {
  Simulation sim(in, placement);
  RunResult r = sim.run(progress);
  r.placement = placement.describe();
  r.sharing = in.sharing.describe();
  return r;
}

}  // namespace slicelab
