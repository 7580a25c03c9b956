// Kueue's quota arithmetic and admission order, for a flat cohort (Kueue's hierarchical
// cohorts reduce to it when every cohort is a root). Each rule names the Kueue function it
// follows (kubernetes-sigs/kueue, pkg/cache/scheduler/resource_node.go, fair_sharing.go,
// pkg/scheduler/scheduler.go, pkg/scheduler/preemption/preemption.go).
#include "sim/engine/cluster_queues.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace slicelab {
namespace {

constexpr int64_t kNoQuotaLimit = std::numeric_limits<int64_t>::max() / 4;

std::string quantity_text(size_t r, int64_t v) {
  switch (static_cast<QuotaResource>(r)) {
    case QuotaResource::kGpu:
      return fmt::format("{:g} GPUs", static_cast<double>(v) / 1000.0);
    case QuotaResource::kCpu:
      return fmt::format("{:g} CPUs", static_cast<double>(v) / 1000.0);
    case QuotaResource::kMemory:
      return fmt::format("{} MiB of memory", v);
  }
  return {};
}

}  // namespace

std::string_view to_string(QuotaResource r) {
  switch (r) {
    case QuotaResource::kGpu:
      return "gpu";
    case QuotaResource::kCpu:
      return "cpu";
    case QuotaResource::kMemory:
      return "memory";
  }
  return "?";
}

std::string_view to_string(QueueingStrategy s) {
  return s == QueueingStrategy::kStrictFifo ? "strict-fifo" : "best-effort-fifo";
}

std::string_view to_string(ReclaimPolicy r) {
  switch (r) {
    case ReclaimPolicy::kNever:
      return "never";
    case ReclaimPolicy::kLowerPriority:
      return "lower-priority";
    case ReclaimPolicy::kAny:
      return "any";
  }
  return "?";
}

std::optional<QueueingStrategy> queueing_strategy_from_name(std::string_view name) {
  if (name == "strict-fifo") return QueueingStrategy::kStrictFifo;
  if (name == "best-effort-fifo") return QueueingStrategy::kBestEffortFifo;
  return std::nullopt;
}

std::optional<ReclaimPolicy> reclaim_policy_from_name(std::string_view name) {
  if (name == "never") return ReclaimPolicy::kNever;
  if (name == "lower-priority") return ReclaimPolicy::kLowerPriority;
  if (name == "any") return ReclaimPolicy::kAny;
  return std::nullopt;
}

void ClusterQueues::prepare(const QueueConfig& config, std::vector<Workload> workloads, double t0) {
  specs_ = config.queues;
  fair_ = config.fair_sharing;
  work_ = std::move(workloads);
  state_.assign(work_.size(), State::kIdle);
  admit_order_.assign(work_.size(), 0);
  evicted_pass_.assign(work_.size(), 0);
  pass_ = 0;
  const size_t n = specs_.size();
  cohort_.assign(n, kNoQueue);
  members_.clear();
  std::map<std::string, uint32_t> cohorts;
  for (size_t q = 0; q < n; ++q) {
    if (specs_[q].cohort.empty()) continue;
    const auto [it, added] =
        cohorts.emplace(specs_[q].cohort, static_cast<uint32_t>(members_.size()));
    if (added) members_.emplace_back();
    cohort_[q] = it->second;
    members_[it->second].push_back(static_cast<uint32_t>(q));
  }
  // What each cohort lends per resource, and each queue's share of its cohort's nominal GPUs:
  // fixed for the run, read at every admission and every accounting step.
  lendable_.assign(members_.size(), QuotaVector{});
  for (size_t q = 0; q < n; ++q)
    for (size_t r = 0; r < kQuotaResources && cohort_[q] != kNoQueue; ++r)
      if (counts(q, r)) lendable_[cohort_[q]][r] += *specs_[q].nominal[r] - guaranteed(q, r);
  constexpr size_t kG = static_cast<size_t>(QuotaResource::kGpu);
  fair_share_.assign(n, 0.0);
  for (size_t q = 0; q < n; ++q) {
    if (!counts(q, kG)) continue;
    if (cohort_[q] == kNoQueue) {
      fair_share_[q] = 1;
      continue;
    }
    int64_t total = 0;
    for (const uint32_t m : members_[cohort_[q]])
      if (counts(m, kG)) total += *specs_[m].nominal[kG];
    if (total > 0)
      fair_share_[q] = static_cast<double>(*specs_[q].nominal[kG]) / static_cast<double>(total);
  }
  usage_.assign(n, QuotaVector{});
  pending_.assign(n, Pending{});
  admitted_.assign(n, {});
  figures_.assign(n, QueueUsage{});
  last_s_ = t0;
  dirty_ = false;
}

// Kueue's localQuota: the part of the nominal quota a queue never lends.
int64_t ClusterQueues::guaranteed(size_t q, size_t r) const {
  const auto& lend = specs_[q].lending_limit[r];
  return lend ? std::max<int64_t>(0, *specs_[q].nominal[r] - *lend) : 0;
}

// resource_node.go available(): what is left of the queue's own guaranteed part, plus what
// its cohort has unused (each member puts in its nominal quota less its guaranteed part),
// capped by its borrowing limit.
int64_t ClusterQueues::available(size_t q, size_t r) const {
  if (!counts(q, r)) return kNoQuotaLimit;
  const int64_t nominal = *specs_[q].nominal[r];
  const int64_t used = usage_[q][r];
  if (cohort_[q] == kNoQueue) return std::max<int64_t>(0, nominal - used);
  int64_t taken = 0;
  for (const uint32_t m : members_[cohort_[q]])
    if (counts(m, r)) taken += std::max<int64_t>(0, usage_[m][r] - guaranteed(m, r));
  const int64_t g = guaranteed(q, r);
  int64_t from_cohort = lendable_[cohort_[q]][r] - taken;
  if (const auto& limit = specs_[q].borrowing_limit[r])
    from_cohort = std::min(nominal - g - std::max<int64_t>(0, used - g) + *limit, from_cohort);
  return std::max<int64_t>(0, std::max<int64_t>(0, g - used) + from_cohort);
}

int64_t ClusterQueues::available(size_t q, QuotaResource r) const {
  return available(q, static_cast<size_t>(r));
}

bool ClusterQueues::fits(size_t q, const QuotaVector& req) const {
  for (size_t r = 0; r < kQuotaResources; ++r)
    if (counts(q, r) && req[r] > available(q, r)) return false;
  return true;
}

bool ClusterQueues::within_nominal(size_t q, const QuotaVector& req) const {
  for (size_t r = 0; r < kQuotaResources; ++r)
    if (counts(q, r) && usage_[q][r] + req[r] > *specs_[q].nominal[r]) return false;
  return true;
}

bool ClusterQueues::borrows_with(size_t q, const QuotaVector& req) const {
  for (size_t r = 0; r < kQuotaResources; ++r)
    if (counts(q, r) && usage_[q][r] + req[r] > *specs_[q].nominal[r]) return true;
  return false;
}

// fair_sharing.go dominantResourceShare(): per resource, what the queue would use above its
// nominal quota, per mille of what its cohort can lend; the largest, divided by its weight.
double ClusterQueues::dominant_share(size_t q, const QuotaVector& extra) const {
  if (cohort_[q] == kNoQueue) return 0;
  int64_t share = 0;
  for (size_t r = 0; r < kQuotaResources; ++r) {
    if (!counts(q, r)) continue;
    const int64_t borrowed = extra[r] + usage_[q][r] - *specs_[q].nominal[r];
    if (borrowed <= 0) continue;
    const int64_t lendable = lendable_[cohort_[q]][r];
    if (lendable > 0) share = std::max(share, borrowed * 1000 / lendable);
  }
  if (share == 0) return 0;
  if (specs_[q].weight <= 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(share) / specs_[q].weight;
}

double ClusterQueues::fair_share(size_t q) const {
  return fair_share_[q];
}

std::string ClusterQueues::never_admitted(uint32_t j) const {
  const uint32_t q = work_[j].queue;
  for (size_t r = 0; r < kQuotaResources; ++r) {
    if (!counts(q, r)) continue;
    // resource_node.go potentialAvailable(): all its cohort lends, within its borrowing limit.
    int64_t most = *specs_[q].nominal[r];
    if (cohort_[q] != kNoQueue) {
      most = guaranteed(q, r) + lendable_[cohort_[q]][r];
      if (const auto& limit = specs_[q].borrowing_limit[r])
        most = std::min(most, *specs_[q].nominal[r] + *limit);
    }
    if (work_[j].request[r] > most)
      return fmt::format("its job asks {} and queue '{}' may never use more than {}",
                         quantity_text(r, work_[j].request[r]), specs_[q].name,
                         quantity_text(r, most));
  }
  return {};
}

void ClusterQueues::add_pending(uint32_t j) {
  Pending& p = pending_[work_[j].queue];
  p.groups[work_[j].request].insert(key_of(j));
  ++p.count;
}

void ClusterQueues::remove_pending(uint32_t j) {
  Pending& p = pending_[work_[j].queue];
  const auto g = p.groups.find(work_[j].request);
  g->second.erase(key_of(j));
  if (g->second.empty()) p.groups.erase(g);
  --p.count;
}

void ClusterQueues::take(uint32_t j) {
  const uint32_t q = work_[j].queue;
  for (size_t r = 0; r < kQuotaResources; ++r) usage_[q][r] += work_[j].request[r];
  admit_order_[j] = ++admissions_;
  admitted_[q].insert({work_[j].priority, ~admit_order_[j], j});
  state_[j] = State::kAdmitted;
  ++figures_[q].admitted;
  constexpr size_t kG = static_cast<size_t>(QuotaResource::kGpu);
  if (counts(q, kG)) {
    const double over = static_cast<double>(usage_[q][kG] - *specs_[q].nominal[kG]) / 1000.0;
    figures_[q].peak_borrowed_gpus = std::max(figures_[q].peak_borrowed_gpus, over);
  }
}

void ClusterQueues::give_back(uint32_t j) {
  const uint32_t q = work_[j].queue;
  for (size_t r = 0; r < kQuotaResources; ++r) usage_[q][r] -= work_[j].request[r];
  admitted_[q].erase({work_[j].priority, ~admit_order_[j], j});
}

void ClusterQueues::account(double now) {
  const double dt = now - last_s_;
  if (dt <= 0) return;
  last_s_ = now;
  constexpr size_t kG = static_cast<size_t>(QuotaResource::kGpu);
  for (size_t q = 0; q < specs_.size(); ++q) {
    const double gpus = static_cast<double>(usage_[q][kG]) / 1000.0;
    QueueUsage& f = figures_[q];
    f.gpu_s += gpus * dt;
    if (counts(q, kG))
      f.borrowed_gpu_s +=
          std::max(0.0, gpus - static_cast<double>(*specs_[q].nominal[kG]) / 1000.0) * dt;
    if (pending_[q].count == 0) continue;
    f.waiting_s += dt;
    const double share = fair_share(q);
    if (share > 0) {
      const double cohort_gpus = static_cast<double>(*specs_[q].nominal[kG]) / 1000.0 / share;
      f.share_waiting_s += gpus / cohort_gpus * dt;
    }
  }
}

void ClusterQueues::submit(uint32_t j, uint64_t seq, double now) {
  account(now);
  work_[j].seq = seq;
  state_[j] = State::kPending;
  add_pending(j);
  dirty_ = true;
}

void ClusterQueues::finish(uint32_t j, double now) {
  if (state_[j] != State::kAdmitted) return;
  account(now);
  give_back(j);
  state_[j] = State::kDone;
  dirty_ = true;
}

// classical preemption (preemption.go classicalPreemptions): candidates from the other queues
// of the cohort while they borrow, lower priority first, then the newest admission
// (common/ordering.go CandidatesOrdering); removed one by one until the job fits, then every
// victim but the last is put back where the job still fits (fillBackWorkloads).
bool ClusterQueues::reclaim_for(uint32_t q, uint32_t j, std::vector<uint32_t>& victims) {
  victims.clear();
  if (cohort_[q] == kNoQueue) return false;
  const ReclaimPolicy policy = specs_[q].reclaim;
  struct Cursor {
    std::set<Admitted>::const_iterator at, end;
  };
  std::vector<Cursor> cursors;
  for (const uint32_t m : members_[cohort_[q]])
    if (m != q && !admitted_[m].empty() && borrowing(m))
      cursors.push_back({admitted_[m].begin(), admitted_[m].end()});
  const QuotaVector& req = work_[j].request;
  bool fit = false;
  for (;;) {
    Cursor* next = nullptr;
    for (Cursor& c : cursors)
      if (c.at != c.end && (next == nullptr || *c.at < *next->at)) next = &c;
    if (next == nullptr) break;
    const Admitted cand = *next->at++;
    if (policy == ReclaimPolicy::kLowerPriority && cand.priority >= work_[j].priority) continue;
    const uint32_t m = work_[cand.job].queue;
    if (!borrowing(m)) continue;  // candidateIsValid: only quota that is borrowed is reclaimed
    for (size_t r = 0; r < kQuotaResources; ++r) usage_[m][r] -= work_[cand.job].request[r];
    victims.push_back(cand.job);
    if (fits(q, req)) {
      fit = true;
      break;
    }
  }
  if (fit && victims.size() > 1) {
    for (size_t i = victims.size() - 1; i-- > 0;) {
      const uint32_t v = victims[i];
      const uint32_t m = work_[v].queue;
      for (size_t r = 0; r < kQuotaResources; ++r) usage_[m][r] += work_[v].request[r];
      if (fits(q, req)) {
        victims.erase(victims.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        for (size_t r = 0; r < kQuotaResources; ++r) usage_[m][r] -= work_[v].request[r];
      }
    }
  }
  for (const uint32_t v : victims) {
    const uint32_t m = work_[v].queue;
    for (size_t r = 0; r < kQuotaResources; ++r) usage_[m][r] += work_[v].request[r];
  }
  if (!fit) victims.clear();
  return fit;
}

// A queue's candidate for this round (cluster_queue.go): its first pending job in order
// (priority, then arrival). Strict FIFO offers that one only; best-effort FIFO passes over
// jobs that neither fit nor can reclaim, to the first that does.
bool ClusterQueues::head_of(uint32_t q, Entry& e) {
  const Pending& p = pending_[q];
  if (p.count == 0) return false;
  std::vector<Key>& heads = heads_;
  heads.clear();
  // A job evicted in this pass waits for the next one: each pass then ends (every job is
  // admitted at most once in it, and only admitted jobs are evicted).
  for (const auto& [request, keys] : p.groups)
    for (const Key& k : keys)
      if (evicted_pass_[k.job] != pass_) {
        heads.push_back(k);
        break;
      }
  std::sort(heads.begin(), heads.end());
  const bool strict = specs_[q].strategy == QueueingStrategy::kStrictFifo;
  for (const Key& k : heads) {
    const QuotaVector& req = work_[k.job].request;
    e.queue = q;
    e.job = k.job;
    e.victims.clear();
    if (fits(q, req) || (specs_[q].reclaim != ReclaimPolicy::kNever && within_nominal(q, req) &&
                         reclaim_for(q, k.job, e.victims))) {
      e.borrows = borrows_with(q, req);
      e.share = fair_ ? dominant_share(q, req) : 0;
      return true;
    }
    if (strict) return false;
  }
  return false;
}

// scheduler.go's order across queues (fair_sharing_iterator.go with fair sharing): a job
// within its nominal quota before one that borrows; with fair sharing the lower dominant
// share; then higher priority; then the earlier arrival.
bool ClusterQueues::better(const Entry& a, const Entry& b) const {
  if (a.borrows != b.borrows) return !a.borrows;
  if (fair_ && a.share != b.share) return a.share < b.share;
  const Key ka = key_of(a.job), kb = key_of(b.job);
  if (ka < kb || kb < ka) return ka < kb;
  return a.queue < b.queue;
}

void ClusterQueues::admit(double now, std::vector<Step>& out) {
  out.clear();
  if (!dirty_) return;
  dirty_ = false;
  account(now);
  ++pass_;
  for (;;) {
    entries_.clear();
    for (uint32_t q = 0; q < specs_.size(); ++q) {
      Entry e;
      if (head_of(q, e)) entries_.push_back(std::move(e));
    }
    if (entries_.empty()) return;
    const Entry* best = &entries_.front();
    for (const Entry& e : entries_)
      if (better(e, *best)) best = &e;
    for (const uint32_t v : best->victims) {
      give_back(v);
      evicted_pass_[v] = pass_;
      state_[v] = State::kPending;
      add_pending(v);
      ++figures_[work_[v].queue].reclaimed;
      out.push_back({v, true});
    }
    if (!best->victims.empty()) ++figures_[best->queue].reclaims;
    remove_pending(best->job);
    take(best->job);
    out.push_back({best->job, false});
  }
}

void ClusterQueues::sample(double t, std::vector<QueueSample>& out) const {
  constexpr size_t kG = static_cast<size_t>(QuotaResource::kGpu);
  for (uint32_t q = 0; q < specs_.size(); ++q) {
    QueueSample s;
    s.time_s = t;
    s.queue = q;
    s.pending = static_cast<uint32_t>(pending_[q].count);
    s.admitted = static_cast<uint32_t>(admitted_[q].size());
    s.used_gpus = static_cast<double>(usage_[q][kG]) / 1000.0;
    if (counts(q, kG))
      s.borrowed_gpus =
          std::max(0.0, s.used_gpus - static_cast<double>(*specs_[q].nominal[kG]) / 1000.0);
    out.push_back(s);
  }
}

std::vector<QueueUsage> ClusterQueues::usage_until(double now) {
  account(now);
  return figures_;
}

}  // namespace slicelab
