// Gangs: the pods of a job that must start together (docs/training-jobs.md#gang-modes). Their
// members queue once all arrived; all-or-nothing binds min_member of them in one attempt or
// none; permit and none bind them one by one, held until the gang is complete (permit: released
// after its timeout).
#include <fmt/format.h>

#include <algorithm>

#include "sim/engine/simulation.h"
#include "sim/metrics/distribution.h"

namespace slicelab {
namespace {

// The GPUs' worth a member held bound, waiting, from its bind until `now`.
double held_gpu_seconds(const HeldMember& h, double now) {
  return (now - h.since_s) * static_cast<double>(h.request.gpu_count) *
         static_cast<double>(h.request.gpu_milli) / 1000.0;
}

}  // namespace

// A member arrived. Members wait, unqueued, until their whole job has arrived (coscheduling's
// PreFilter rejects a group with fewer pods than minMember); then all of them queue at the
// last one's arrival rank, next to each other, and are tried at once.
void Simulation::gang_arrived(uint32_t j, uint32_t p, uint64_t seq) {
  const JobInfo& job = (*in_.jobs)[j];
  GangTable::Job& g = gangs_[j];
  if (auto why = never_fits(p)) {
    out_[p].status = PodStatus::kUnschedulable;
    out_[p].reason = reasons_.add("no node could ever hold it: " + *why);
    ++g.lost;
  }
  if (!gangs_.arrived(j, seq, job.pod_count)) return;
  const uint32_t end = job.first_pod + job.pod_count;
  // The least GPUs its gang holds at once (its min_member smallest members; the parts of a
  // split worker differ): more than the cluster has, it can never start, though each member
  // fits a node.
  member_gpus_.clear();
  for (uint32_t m = job.first_pod; m < end; ++m)
    member_gpus_.push_back(in_.pods[m].gpu_count * static_cast<double>(in_.pods[m].gpu_milli) /
                           1000.0);
  std::sort(member_gpus_.begin(), member_gpus_.end());
  double gang_gpus = 0;
  for (size_t k = 0; k < job.min_member && k < member_gpus_.size(); ++k)
    gang_gpus += member_gpus_[k];
  const auto cluster_gpus = static_cast<double>(in_.cluster.gpu_count());
  if (job.pod_count - g.lost < job.min_member || gang_gpus > cluster_gpus) {
    const std::string text =
        gang_gpus > cluster_gpus
            ? fmt::format(
                  "its gang can never start: {} pods must start together, {:g} GPUs, "
                  "and the cluster has {:g}",
                  job.min_member, gang_gpus, cluster_gpus)
            : fmt::format(
                  "its gang can never start: {} of its job's {} pods never fit, {} must "
                  "start together",
                  g.lost, job.pod_count, job.min_member);
    const uint32_t why = reasons_.add(text);
    for (uint32_t m = job.first_pod; m < end; ++m) {
      if (out_[m].status != PodStatus::kPending) continue;
      out_[m].status = PodStatus::kUnschedulable;
      out_[m].reason = why;
    }
    return;
  }
  if (quotas_.holds(j)) {
    // It waits for its queue's quota: admitted (its pods queue) now or later.
    if (const std::string why = quotas_.never_admitted(j); !why.empty()) {
      const uint32_t reason = reasons_.add("its queue can never admit it: " + why);
      for (uint32_t m = job.first_pod; m < end; ++m) {
        if (out_[m].status != PodStatus::kPending) continue;
        out_[m].status = PodStatus::kUnschedulable;
        out_[m].reason = reason;
      }
      return;
    }
    quotas_.submit(j, seq, now_);
    admit_queued();
    return;
  }
  for (uint32_t m = job.first_pod; m < end; ++m)
    if (out_[m].status == PodStatus::kPending) queue_.push(m, in_.pods[m].priority, seq);
  schedule_pending();
}

// All-or-nothing: every queued member in turn (members after the first that fails are not
// tried: a gang's members ask alike); at least min_member bound start together, fewer are
// unbound again. Repeated only once nodes were freed since the last failure.
bool Simulation::place_gang(uint32_t j) {
  GangTable::Job& g = gangs_[j];
  if (g.tried_at == retry_.freed_count()) return false;
  accounting_.placement_attempted();
  searched_while_reserved_ = false;
  const bool placed = reserve_gang(j, preempting_);
  if (placed && !tentative_.empty()) {
    // Preemption made room: the members leave again, the victims are evicted (their gangs with
    // them), and the members are placed on what that freed.
    unreserve_gang(j);
    settle_set_aside(true);
    if (!reserve_gang(j, false)) {
      unreserve_gang(j);
      g.tried_at = retry_.freed_count();
      accounting_.placement_failed();
      return false;
    }
  } else if (!placed) {
    unreserve_gang(j);
    settle_set_aside(false);
    g.tried_at = retry_.freed_count();
    accounting_.placement_failed();
    return false;
  }
  start_gang(j, false);
  return true;
}

// Reserves the queued members in turn until one does not fit (members after it are not tried: a
// gang's members ask alike); with `preempt`, a member that does not fit sets victims aside
// first. True when at least min_member are reserved (in g.held).
bool Simulation::reserve_gang(uint32_t j, bool preempt) {
  const JobInfo& job = (*in_.jobs)[j];
  GangTable::Job& g = gangs_[j];
  g.held.clear();
  const uint32_t end = job.first_pod + job.pod_count;
  for (uint32_t m = job.first_pod; m < end; ++m) {
    if (out_[m].status != PodStatus::kPending || out_[m].node >= 0) continue;
    HeldMember h;
    if (!reserve(m, h) && !(preempt && set_aside_victims_for(m) && reserve(m, h))) break;
    g.held.push_back(h);
  }
  return g.held.size() >= job.min_member;
}

// Undoes reserve_gang: as kube-scheduler unreserves a pod's plugins, each member in the reverse
// order.
void Simulation::unreserve_gang(uint32_t j) {
  GangTable::Job& g = gangs_[j];
  for (auto it = g.held.rbegin(); it != g.held.rend(); ++it) {
    unbind(it->pod, it->request, it->node, held_gpus(*it), false);
    // A search that found no candidate while this member held its node saw less room than
    // there is now: the node counts as freed, so that such a search is not trusted there.
    if (searched_while_reserved_) room_.node_freed(it->node);
    out_[it->pod].node = -1;
    out_[it->pod].gpu_count = 0;
  }
  g.held.clear();
}

// Permit and none: the member binds on its own and holds its GPUs until its gang is complete.
bool Simulation::hold_member(uint32_t j, uint32_t p) {
  if (now_ < gangs_[j].denied_until_s) return false;  // its group backs off after a timeout
  HeldMember h;
  if (!attempt(p, h)) return false;
  const PodRequest& r = h.request;
  accounting_.allocation_changed(cluster_.model(h.node),
                                 static_cast<double>(r.claim_units) /
                                     static_cast<double>(cluster_.capacity_units()) *
                                     static_cast<double>(r.gpu_count));
  GangTable::Job& g = gangs_[j];
  g.held.push_back(h);
  if (g.held.size() >= (*in_.jobs)[j].min_member)
    start_gang(j, true);
  else if (g.held.size() == 1 && in_.config.gang.mode == GangMode::kPermit)
    gangs_.arm(j, now_ + in_.config.gang.timeout_s, GangTable::TimerKind::kTimeout);
  return true;
}

std::span<const GpuId> Simulation::held_gpus(const HeldMember& h) {
  const PodOutcome& o = out_[h.pod];
  const GpuId first = cluster_.first_gpu(h.node);
  const auto rooms = bound_gpus_.slots();
  held_gpus_.resize(o.gpu_count);
  for (size_t k = 0; k < o.gpu_count; ++k) held_gpus_[k] = first + rooms[o.gpu_begin + k];
  return held_gpus_;
}

// The gang starts: every held member starts now (each through its own start checks).
void Simulation::start_gang(uint32_t j, bool held) {
  GangTable::Job& g = gangs_[j];
  g.gang_started = true;
  if (g.start_s < 0) g.start_s = now_;  // its first start: queueing ends there
  ++g.epoch;                            // its timer is void
  for (const HeldMember& h : g.held) {
    g.held_gpu_s += held_gpu_seconds(h, now_);
    // held_gpus_ is scratch that commit's failure path does not touch.
    commit(h.pod, h.request, h.node, held_gpus(h), held);
  }
  g.held.clear();
}

// The members bound while waiting for their gang leave their nodes, the last bound first; what
// they held until now counts as held waiting. g.held is left for the caller.
void Simulation::unbind_held(uint32_t j) {
  GangTable::Job& g = gangs_[j];
  for (auto it = g.held.rbegin(); it != g.held.rend(); ++it) {
    g.held_gpu_s += held_gpu_seconds(*it, now_);
    unbind(it->pod, it->request, it->node, held_gpus(*it), true);
    out_[it->pod].node = -1;
    out_[it->pod].gpu_count = 0;
  }
}

// Permit's timeout: the partial gang's members are unbound, and queue again where they were
// after the back-off. Its end: they queue.
void Simulation::gang_timer(uint32_t j, GangTable::TimerKind kind) {
  GangTable::Job& g = gangs_[j];
  if (kind == GangTable::TimerKind::kBackoff) {
    for (const uint32_t m : g.backing_off) queue_.push(m, in_.pods[m].priority, g.seq);
    g.backing_off.clear();
    schedule_pending();
    return;
  }
  ++g.timeouts;
  ++g.epoch;
  unbind_held(j);
  // In member order, so that they queue as they did. The members never bound wait too: the
  // group is denied as a whole.
  for (const HeldMember& h : g.held) g.backing_off.push_back(h.pod);
  g.held.clear();
  g.denied_until_s = now_ + in_.config.gang.backoff_s;
  if (in_.config.gang.backoff_s > 0) {
    gangs_.arm(j, now_ + in_.config.gang.backoff_s, GangTable::TimerKind::kBackoff);
    schedule_pending();  // others may take the room given back
  } else {
    gang_timer(j, GangTable::TimerKind::kBackoff);
  }
}

bool Simulation::failure_shared_by_shape(uint32_t p) const {
  if (gangs_.empty()) return true;
  const uint32_t j = in_.jobs->job_of(p);
  if (j == JobTable::kNoJob || !(*in_.jobs)[j].gang() || gangs_[j].gang_started) return true;
  // All-or-nothing: the gang did not fit, not the pod; permit: a member of a group backing off
  // was not tried.
  return in_.config.gang.mode != GangMode::kAllOrNothing && now_ >= gangs_[j].denied_until_s;
}

// Per job, from its pods' outcomes and its gang's record, at the run's end (members still held
// count their GPU-seconds until then).
std::vector<JobOutcome> Simulation::job_outcomes() {
  std::vector<JobOutcome> out;
  if (in_.jobs == nullptr || in_.jobs->empty()) return out;
  const JobTable& jobs = *in_.jobs;
  out.resize(jobs.size());
  for (uint32_t j = 0; j < jobs.size(); ++j) {
    const JobInfo& job = jobs[j];
    JobOutcome& o = out[j];
    bool all_ended = true, all_completed = true, any_failed = false, any_unschedulable = false;
    double first_start = -1, last_end = -1;
    for (uint32_t m = job.first_pod; m < job.first_pod + job.pod_count; ++m) {
      const PodOutcome& p = out_[m];
      const bool ended = p.status == PodStatus::kCompleted || p.status == PodStatus::kFailed;
      all_ended = all_ended && ended;
      all_completed = all_completed && p.status == PodStatus::kCompleted;
      any_failed = any_failed || p.status == PodStatus::kFailed;
      any_unschedulable = any_unschedulable || p.status == PodStatus::kUnschedulable;
      if (p.start_s >= 0 && (first_start < 0 || p.start_s < first_start)) first_start = p.start_s;
      if (ended) last_end = std::max(last_end, p.finish_s);
    }
    if (!gangs_.empty() && job.gang()) {
      const GangTable::Job& g = gangs_[j];
      o.start_s = g.start_s;
      o.held_gpu_s = g.held_gpu_s;
      for (const HeldMember& h : g.held) o.held_gpu_s += held_gpu_seconds(h, now_);
      o.gang_timeouts = g.timeouts;
    } else {
      o.start_s = first_start;
    }
    if (all_ended) o.finish_s = last_end;
    if (!job_evictions_.empty()) {
      o.evicted_pods = job_evictions_[j].pods;
      o.lost_gpu_s = job_evictions_[j].lost_gpu_s;
    }
    if (!admitted_s_.empty()) {
      o.admitted_s = admitted_s_[j];
      o.reclaimed = job_reclaims_[j];
    }
    if (all_completed)
      o.status = PodStatus::kCompleted;
    else if (any_failed && all_ended)
      o.status = PodStatus::kFailed;
    else if (any_unschedulable && o.start_s < 0)
      o.status = PodStatus::kUnschedulable;
    else if (o.start_s >= 0)
      o.status = PodStatus::kRunning;
  }
  return out;
}

}  // namespace slicelab
