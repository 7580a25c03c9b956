// Preemption (engine.preemption; docs/training-jobs.md#preemption): a pod that does not fit evicts
// lower-priority pods as kube-scheduler's DefaultPreemption picks them (preemption.h). An evicted
// pod keeps the work up to its job's last checkpoint and queues again where it first arrived; a
// gang loses all its running members at once and starts again as a gang.
#include <algorithm>
#include <cmath>

#include "sim/engine/simulation.h"

namespace slicelab {

// The pod's place in the queue: its first arrival's rank (a gang's: its last member's).
uint64_t Simulation::queue_rank(uint32_t p) const {
  if (!gangs_.empty()) {
    const uint32_t j = in_.jobs->job_of(p);
    if (j != JobTable::kNoJob && ((*in_.jobs)[j].gang() || quotas_.holds(j))) return gangs_[j].seq;
  }
  return rank_.empty() ? p : rank_[p];
}

// PostFilter: the pod found no node. Candidate nodes are visited from a random offset, as the
// scheduler does, until enough are found, and one is picked; its victims are returned, not
// evicted. Pods set aside for a gang's other members (tentative_) are gone already. None when no
// node would take the pod even without its lower-priority pods.
//
// A search that found no candidate is remembered by the pod's request and priority (every pod
// alike finds the same): until a node is freed, none will find one, and then only on the nodes
// freed since. A pod that started since took free room, which removing every pod below the
// pending one gives back just as well (or it is not below it, and can only hinder). Not while a
// gang's victims are set aside (they freed room no search saw), nor with a snapshot's pinned pods
// (equal requests fit different nodes).
std::optional<PreemptionCandidate> Simulation::find_victims(uint32_t p) {
  const int priority = in_.pods[p].priority;
  if (running_priorities_.empty() || running_priorities_.begin()->first >= priority)
    return std::nullopt;  // nothing runs below it
  const size_t nodes = cluster_.node_count();
  if (nodes == 0) return std::nullopt;
  const bool remember = tentative_.empty() && in_.pinned.empty();
  const uint64_t key = (uint64_t{req_.record_of(p)} << 32) | static_cast<uint32_t>(priority);
  bool narrowed = false;
  if (remember) {
    if (const auto it = fruitless_.find(key); it != fruitless_.end()) {
      if (it->second == room_.freed_count()) return std::nullopt;
      narrowed = room_.freed_since_count(it->second, nodes, search_nodes_);
    }
  }
  const size_t visit = narrowed ? search_nodes_.size() : nodes;
  const size_t wanted = candidates_wanted(nodes);
  const size_t offset = visit > 0 ? rng_.below(visit) : 0;
  PodRequest r = req_[p];
  SchedulingCycle cycle{cluster_, r, p, now_, rng_, 0, sharing_.get()};
  size_t found = 0;
  for (size_t k = 0; k < visit && found < wanted; ++k) {
    const size_t i = (offset + k) % visit;
    const NodeId n = narrowed ? search_nodes_[i] : static_cast<NodeId>(i);
    if (found == candidates_.size()) candidates_.emplace_back();
    PreemptionCandidate& c = candidates_[found];
    if (evaluate_node(n, cycle, priority, key, c.victims)) {
      c.node = n;
      ++found;
    }
  }
  if (found == 0) {
    if (remember) {
      fruitless_[key] = room_.freed_count();
      searched_while_reserved_ = true;
    }
    return std::nullopt;
  }
  if (remember) fruitless_.erase(key);
  return candidates_[pick_one_node(std::span<const PreemptionCandidate>(candidates_).first(found))];
}

// One node of the search: a candidate when removing pods below `priority` (not those set aside)
// lets the pod fit; its victims into `victims`.
bool Simulation::evaluate_node(NodeId n, const SchedulingCycle& cycle, int priority, uint64_t key,
                               std::vector<PreemptionVictim>& victims) {
  const PodRequest& r = cycle.req;
  const int64_t units = int64_t{r.claim_units} * r.gpu_count;
  // What every pod below it would free: a node where even that is too little is no candidate,
  // and needs no dry run. From the table when it is on (pods set aside count twice there: a
  // looser bound, still a bound).
  if (room_by_priority_.enabled()) {
    const size_t lower_levels = room_by_priority_.levels_below(priority);
    if (lower_levels == 0) return false;
    const PriorityRoom::Room below = room_by_priority_.below(n, lower_levels);
    if (below.units == 0 && below.cpu_milli == 0 && below.memory_mib == 0) return false;
    if (cluster_.cpu_free(n) + below.cpu_milli < r.cpu_milli ||
        cluster_.memory_free(n) + below.memory_mib < r.memory_mib ||
        cluster_.free_units(n) + below.units < units)
      return false;
  }
  int64_t cpu = cluster_.cpu_free(n), mem = cluster_.memory_free(n), gpu = cluster_.free_units(n);
  on_node_.clear();
  for (const NodePod& q : node_pods_[n]) {
    if (q.priority >= priority || out_[q.pod].status != PodStatus::kRunning ||
        std::find(tentative_.begin(), tentative_.end(), q.pod) != tentative_.end())
      continue;
    on_node_.push_back({q.pod, q.priority, out_[q.pod].start_s});
    cpu += q.cpu_milli;
    mem += q.memory_mib;
    gpu += q.units;
  }
  if (on_node_.empty() || cpu < r.cpu_milli || mem < r.memory_mib || gpu < units) return false;
  // The node's answer for this request and priority, while the node is as it was then (its
  // version moves with every bind and unbind, the dry run's own included, so the version after
  // the dry run is kept). Not with a snapshot's pinned pods (answers then differ by pod).
  VictimsMemo& memo = victims_memo_[n];
  const bool memo_ok = in_.pinned.empty();
  if (memo_ok && memo.key == key && memo.version == cluster_.version(n) &&
      memo.epoch == node_epoch_[n]) {
    victims = memo.victims;
    return memo.candidate;
  }
  const auto set_present = [&](const PreemptionVictim& v, bool present) {
    set_bound(v.pod, present);
  };
  const auto fits = [&] { return placement_.passes_filters(cycle, n, one_node_); };
  const bool candidate = select_victims(on_node_, priority, set_present, fits, victims);
  if (memo_ok) {
    memo.key = key;
    memo.version = cluster_.version(n);
    memo.epoch = node_epoch_[n];
    memo.candidate = candidate;
    memo.victims = victims;
  }
  return candidate;
}

// A running pod's resources leave its node's state (present: false) or return to it, and
// nothing else changes: the dry runs of preemption.
void Simulation::set_bound(uint32_t q, bool present) {
  const PodRequest& bound = live_[tenants_.slot(q)].bound;
  const auto node = static_cast<NodeId>(out_[q].node);
  if (present)
    cluster_.bind(node, tenants_.gpus_of(q), bound);
  else
    cluster_.unbind(node, tenants_.gpus_of(q), bound);
}

void Simulation::pod_runs_on(NodeId node, uint32_t p) {
  auto& on_node = node_pods_[node];
  for (const NodePod& q : on_node)
    if (q.pod == p) return;  // restarted in place: it never left
  const int priority = in_.pods[p].priority;
  const PodRequest& r = live_[tenants_.slot(p)].bound;
  ++node_epoch_[node];
  on_node.push_back(
      {p, priority, static_cast<int32_t>(r.claim_units * r.gpu_count), r.cpu_milli, r.memory_mib});
  room_by_priority_.add(node, priority, {r.cpu_milli, r.memory_mib, on_node.back().units});
  ++running_priorities_[priority];
}

void Simulation::pod_leaves(NodeId node, uint32_t p) {
  auto& on_node = node_pods_[node];
  for (size_t i = 0; i < on_node.size(); ++i) {
    if (on_node[i].pod != p) continue;
    const NodePod& q = on_node[i];
    ++node_epoch_[node];
    room_by_priority_.remove(node, q.priority, {q.cpu_milli, q.memory_mib, q.units});
    const auto it = running_priorities_.find(q.priority);
    if (--it->second == 0) running_priorities_.erase(it);
    on_node[i] = on_node.back();
    on_node.pop_back();
    return;
  }
}

// A pod on its own: its victims are evicted, then it is placed again.
bool Simulation::preempt_for(uint32_t p) {
  const auto chosen = find_victims(p);
  if (!chosen) return false;
  ++preemption_.preemptors;
  for (const PreemptionVictim& v : chosen->victims)
    if (out_[v.pod].status == PodStatus::kRunning) evict(v.pod);
  return true;
}

// A gang's member found no node while its gang is being placed: its victims are set aside
// (their resources leave the nodes' state) until the whole gang is known to fit.
bool Simulation::set_aside_victims_for(uint32_t m) {
  const auto chosen = find_victims(m);
  if (!chosen) return false;
  for (const PreemptionVictim& v : chosen->victims) {
    set_bound(v.pod, false);
    tentative_.push_back(v.pod);
  }
  return true;
}

// The pods set aside come back (evict: false) or are evicted (evict: true).
void Simulation::settle_set_aside(bool evict_them) {
  for (auto it = tentative_.rbegin(); it != tentative_.rend(); ++it) set_bound(*it, true);
  if (evict_them) {
    ++preemption_.preemptors;
    for (const uint32_t v : tentative_)
      if (out_[v].status == PodStatus::kRunning) evict(v);
  }
  tentative_.clear();
}

// The victim leaves; a running gang's other members leave with it (its workers cannot go on
// without it) and the job queues again as a gang.
void Simulation::evict(uint32_t v) {
  if (!gangs_.empty()) {
    const uint32_t j = in_.jobs->job_of(v);
    if (j != JobTable::kNoJob && (*in_.jobs)[j].gang()) {
      const JobInfo& job = (*in_.jobs)[j];
      for (uint32_t m = job.first_pod; m < job.first_pod + job.pod_count; ++m)
        if (out_[m].status == PodStatus::kRunning) evict_one(m);
      GangTable::Job& g = gangs_[j];
      g.gang_started = false;
      ++g.epoch;
      return;
    }
  }
  evict_one(v);
}

// Its work since its job's last checkpoint is lost: it resumes from there when it starts again.
void Simulation::evict_one(uint32_t v) {
  // A pod whose GPUs are still being prepared (MIG's re-partitioning: it starts later) has done
  // nothing since it was placed: it keeps what it had saved before.
  const bool preparing = out_[v].start_s > now_;
  if (!preparing) settle(v);
  events_.cancel(tenants_.slot(v));
  const LiveProgress& prog = live_[tenants_.slot(v)].progress;
  const double duration = in_.pods[v].duration_s;
  const double done = preparing ? resume_[v] : std::max(0.0, duration - prog.remaining);
  const uint32_t j = in_.jobs != nullptr ? in_.jobs->job_of(v) : JobTable::kNoJob;
  const double every = j != JobTable::kNoJob ? (*in_.jobs)[j].checkpoint_s : 0.0;
  const double saved = every > 0 ? std::floor(done / every) * every : 0.0;
  const PodRequest& r = live_[tenants_.slot(v)].bound;
  const double gpus = static_cast<double>(r.gpu_count) * static_cast<double>(r.gpu_milli) / 1000.0;
  const double lost_gpu_s = (done - saved) * gpus;
  preemption_.lost_gpu_hours += lost_gpu_s / 3600.0;
  ++preemption_.victims;
  if (j != JobTable::kNoJob) {
    if ((*in_.jobs)[j].tier == JobTier::kSpot) ++preemption_.spot_victims;
    job_evictions_[j].lost_gpu_s += lost_gpu_s;
    ++job_evictions_[j].pods;
  }
  resume_[v] = saved;
  release_evicted(v);
  PodOutcome& o = out_[v];
  const uint32_t room = o.gpu_begin;
  const uint8_t restarts = o.restarts;
  o = PodOutcome{};
  o.gpu_begin = room;
  o.restarts = restarts;
  evicted_.push_back(v);
}

// Evicted pods queue again once the pass that evicted them is over (a pass must not see its
// queue change under it), then one more pass runs for them.
void Simulation::requeue_evicted() {
  while (!evicted_.empty()) {
    std::vector<uint32_t> now;
    now.swap(evicted_);
    for (const uint32_t v : now)
      if (quotas_.empty() || !held_back(v)) queue_.push(v, in_.pods[v].priority, queue_rank(v));
    queue_.schedule(*this, skip_failed_shapes_);
  }
}

}  // namespace slicelab
