// One pod's start: placement and bind, the start checks, its start on its GPUs (after a
// start delay), and its restarts in place.
#include <algorithm>

#include "sim/engine/simulation.h"
#include "sim/placement/placement_explanation.h"

namespace slicelab {

// Schedule (the placement plugins), bind, then the failure checks; a pod that passes them runs
// now or after its GPUs are prepared. A gang's member waits for its gang (gang_start.cc).
bool Simulation::try_place(uint32_t p) {
  if (!quotas_.empty() && held_back(p)) return true;  // its job left its queue's quota
  if (!gangs_.empty()) {
    const uint32_t j = in_.jobs->job_of(p);
    if (j != JobTable::kNoJob && (*in_.jobs)[j].gang()) {
      // Its gang's attempt placed it while it was still queued: it leaves the queue.
      if (out_[p].node >= 0 || out_[p].status != PodStatus::kPending) return true;
      if (!gangs_[j].gang_started)
        return in_.config.gang.mode == GangMode::kAllOrNothing ? place_gang(j) : hold_member(j, p);
    }
  }
  HeldMember h;
  if (!attempt(p, h)) return false;
  commit(p, h.request, h.node, std::span<const GpuId>(pick_).first(h.request.gpu_count), false);
  return true;
}

// One pod's scheduling attempt: placed and bound (into `h`), after evicting lower-priority pods
// where preemption is on and it found no node; false, marked for the retry shortcut, when it
// must wait.
bool Simulation::attempt(uint32_t p, HeldMember& h) {
  if (!retry_.worth_trying(p)) return false;  // nothing freed since it last failed
  accounting_.placement_attempted();
  if (reserve(p, h) || (preempting_ && preempt_for(p) && reserve(p, h))) return true;
  retry_.attempt_failed(p);
  accounting_.placement_failed();
  return false;
}

// Placement and bind: on success `h` holds the node and the request as bound (a copy of the
// table's record, shared by the pods with equal requests: placement may change the claim, as
// MIG does), and pick_ the GPUs.
bool Simulation::reserve(uint32_t p, HeldMember& h) {
  h.pod = p;
  h.request = req_[p];
  SchedulingCycle cycle{cluster_, h.request, p, now_, rng_, 0, sharing_.get()};
  const auto node =
      in_.explain == nullptr ? placement_.schedule(cycle, pick_) : explained_schedule(cycle);
  if (!node) return false;
  const auto gpus = std::span<const GpuId>(pick_).first(static_cast<size_t>(h.request.gpu_count));
  sharing_->pod_left_queue(p);
  cluster_.bind(*node, gpus, h.request);
  accounting_.pod_bound(*node, gpus);
  PodOutcome& o = out_[p];
  o.node = static_cast<int32_t>(*node);
  bound_gpus_.bind(o, cluster_.first_gpu(*node), gpus);
  h.node = *node;
  h.since_s = now_;
  return true;
}

// schedule() with `slicelab explain` recording the attempt when it is its pod's: out of line, so
// that a run without it pays one test per attempt.
[[gnu::noinline]] std::optional<NodeId> Simulation::explained_schedule(SchedulingCycle& cycle) {
  PlacementExplainer& explain = *in_.explain;
  if (cycle.pod != explain.pod()) return placement_.schedule(cycle, pick_);
  explain.before(placement_, cycle);
  const std::optional<NodeId> node = placement_.schedule(cycle, pick_);
  explain.after(placement_, cycle, node, pick_);
  return node;
}

// A bound pod (its request `r` as bound, on `gpus` of `node`) starts: the failure checks, then
// it runs now or after its GPUs are prepared. `held`: it was bound earlier and has held its
// GPUs since (a gang's member), so its allocation is counted already, and undoing its bind
// frees room that others may have failed for meanwhile.
void Simulation::commit(uint32_t p, const PodRequest& r, NodeId node, std::span<const GpuId> gpus,
                        bool held) {
  PodOutcome& o = out_[p];
  o.start_s = now_;
  const uint16_t model = cluster_.model(node);
  const double speed = in_.config.speed_scaling && r.gpu_count > 0
                           ? in_.catalog.models()[model].relative_speed
                           : 1.0;
  const WorkloadClass* wc = workload_class(p);
  const uint32_t slot = tenants_.start(p, gpus, tenant_load(r, wc, mode_.capacity_units()),
                                       static_cast<double>(r.gpu_milli) / 1000.0, speed);
  live_.start(slot, r);
  o.solo_s = in_.pods[p].duration_s / speed;
  const double claim = static_cast<double>(r.claim_units) /
                       static_cast<double>(cluster_.capacity_units()) *
                       static_cast<double>(r.gpu_count);
  if (failures_.fails_allocation(r, o) || fails_to_start(p, r, gpus)) {
    // Bound but cannot run. Restarting in place, it holds its devices; else unbind it, then let
    // the reserve plugins give back what they took (they may restore the request's claim, which
    // unbinding still needs).
    if (restarts_.in_place(o)) {
      if (!held) accounting_.allocation_changed(model, claim);
    } else {
      tenants_.retire(p);
      unbind(p, r, node, gpus, held);
    }
    failed_to_start(p, r, gpus);
    return;
  }
  o.status = PodStatus::kRunning;
  ++running_;
  if (!held) accounting_.allocation_changed(model, claim);
  if (preempting_) pod_runs_on(node, p);
  if (const double delay = sharing_->start_delay_s(p); delay > 0) {
    // Its GPUs are being prepared (MIG: re-partitioned): it holds them now and starts when that
    // is done.
    o.start_s = now_ + delay;
    events_.schedule(slot, o.start_s, PodEvent::kStart);
    return;
  }
  start_work(p);
}

// Undoes reserve(): the pod leaves its node, and the reserve plugins give back what they took.
// `held`: see commit().
void Simulation::unbind(uint32_t p, const PodRequest& r, NodeId node, std::span<const GpuId> gpus,
                        bool held) {
  PodRequest bound = r;
  SchedulingCycle cycle{cluster_, bound, p, now_, rng_, 0, sharing_.get()};
  cluster_.unbind(node, gpus, bound);
  placement_.unreserve(cycle, node, gpus);
  accounting_.node_changed(node);
  if (held) {
    accounting_.allocation_changed(
        cluster_.model(node),
        -(static_cast<double>(r.claim_units) / static_cast<double>(cluster_.capacity_units()) *
          static_cast<double>(r.gpu_count)));
    node_freed(node);
  }
}

// The start checks on its GPUs, bound (its memory counted once) and not a tenant yet.
bool Simulation::fails_to_start(uint32_t p, const PodRequest& r, std::span<const GpuId> gpus) {
  const int64_t peak_mib = peak_memory_mib(in_.pods[p], workload_class(p), r);
  return failures_.fails_own_limit(peak_mib, r, gpus, out_[p]) ||
         failures_.fails_for_memory(p, r, gpus, *sharing_, out_[p]);
}

// It failed its start checks: its restart, if any, is scheduled (in place: its memory idle in its
// back-off), and a fault of its own (fails_own_limit's causes) may spread to its neighbours.
void Simulation::failed_to_start(uint32_t p, const PodRequest& r, std::span<const GpuId> gpus) {
  PodOutcome& o = out_[p];
  o.status = PodStatus::kFailed;
  o.finish_s = now_;
  const bool hold = restarts_.in_place(o);
  if (hold) failures_.set_idle(p, r, gpus, *sharing_, 1);
  restarts_.failed(p, o, hold ? tenants_.slot(p) : 0, events_);
  if (!quotas_.empty()) job_pod_done(p);
  // It never became a tenant, so only its neighbours are drawn.
  if (o.failure == FailureCause::kOverMemoryCap || o.failure == FailureCause::kClientFault)
    failures_.propagate_fault(
        gpus, [&](GpuId g) { return tenants_.tenants(g); },
        [&](uint32_t victim) {
          if (out_[victim].status == PodStatus::kRunning)
            fail_running(victim, FailureCause::kNeighbourFault, "MPS neighbour fault");
        });
}

// Its back-off is over: its container starts again on the same GPUs, its work from zero.
void Simulation::restart_in_place(uint32_t p) {
  PodOutcome& o = out_[p];
  restarts_.restarted_in_place(o);
  o.failure = FailureCause::kNone;
  o.start_s = now_;
  const uint32_t slot = tenants_.slot(p);
  const PodRequest r = live_[slot].bound;
  const auto gpus = tenants_.gpus_of(p);
  failures_.set_idle(p, r, gpus, *sharing_, -1);
  // Only a curable failure can recur: its own limit and its partition are as they were.
  if (fails_to_start(p, r, gpus)) return failed_to_start(p, r, gpus);
  o.status = PodStatus::kRunning;
  o.reason = ReasonTable::kNone;
  o.finish_s = -1;
  ++running_;
  if (preempting_) pod_runs_on(static_cast<NodeId>(o.node), p);
  live_.start(slot, r);
  start_work(p);
}

void Simulation::start_after_reconfiguration(uint32_t p) {
  start_work(p);
  // The re-partitioned GPUs take new pods again.
  node_freed(static_cast<NodeId>(out_[p].node));
  schedule_pending();
}

// The pod becomes a tenant of its GPUs and the rates of those GPUs are solved anew.
void Simulation::start_work(uint32_t p) {
  // In a fill experiment nothing departs: the finish is never reached.
  LiveProgress& prog = live_[tenants_.slot(p)].progress;
  prog.remaining = in_.config.fill ? kInf : in_.pods[p].duration_s;
  if (!resume_.empty()) prog.remaining -= resume_[p];  // an evicted pod resumes from its checkpoint
  prog.last_update = now_;
  if (req_[p].gpu_count == 0) {
    tenants_.run_alone(p);
    schedule_finish(p);
    return;
  }
  // A service's replica asks nothing until its requests are first solved (it loads its model).
  if (p >= arrivals_) tenants_.load(p).sm_demand = ServingState::kIdleDemand;
  const auto gpus = tenants_.gpus_of(p);
  for (const GpuId g : gpus) tenants_.add(g, p);
  recompute(gpus);
}
}  // namespace slicelab
