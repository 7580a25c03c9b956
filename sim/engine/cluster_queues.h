// Quota admission of a run's jobs, as Kueue's ClusterQueues do it: each job waits in its queue
// until its whole request fits the queue's quota (with what its cohort lends), is admitted in
// Kueue's order, and may reclaim quota that others borrowed. Rules: docs/training-jobs.md#queues.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/engine/cluster_queue_spec.h"
#include "sim/metrics/run_result.h"

namespace slicelab {

// Contract: prepare() once; a held job is submitted once (its members all arrived), admitted
// by admit() (which may first evict borrowers: their steps come first), and finished once its
// pods are done. An evicted job is pending again at its first place (Kueue requeues a
// preempted workload by its creation time). Times never go back.
class ClusterQueues {
 public:
  static constexpr uint32_t kNoQueue = std::numeric_limits<uint32_t>::max();
  struct Workload {
    uint32_t queue = kNoQueue;  // kNoQueue: not held by any queue
    QuotaVector request{};      // all its pods together
    int priority = 0;
    uint64_t seq = 0;  // its place: arrival rank (set by submit)
  };
  struct Step {
    uint32_t job;
    bool evict;  // true: evicted to reclaim quota; false: admitted
  };
  enum class State : uint8_t { kIdle, kPending, kAdmitted, kDone };

  void prepare(const QueueConfig& config, std::vector<Workload> workloads, double t0);
  bool empty() const { return specs_.empty(); }
  bool dirty() const { return dirty_; }
  bool holds(uint32_t j) const { return j < work_.size() && work_[j].queue != kNoQueue; }
  State state(uint32_t j) const { return state_[j]; }
  uint32_t queue_of(uint32_t j) const { return work_[j].queue; }
  // Why job j can never be admitted (it asks more than its queue may ever use), or "".
  std::string never_admitted(uint32_t j) const;

  // Job j is pending from now, at its place `seq` (its arrival rank).
  void submit(uint32_t j, uint64_t seq, double now);
  void finish(uint32_t j, double now);
  // Admits what fits now; the steps taken, in order, go to `out` (cleared first). Costs nothing
  // when no quota changed and no job arrived since the last call.
  void admit(double now, std::vector<Step>& out);

  // What queue q uses of resource r, and could still take now (Kueue's Available; huge for a
  // resource it does not count).
  int64_t usage(size_t q, QuotaResource r) const { return usage_[q][static_cast<size_t>(r)]; }
  int64_t available(size_t q, QuotaResource r) const;
  // Kueue's dominant resource share of queue q with `extra` added to its usage, divided by its
  // weight (x1000): max over resources of borrowed x 1000 / what its cohort lends. 0 outside
  // a cohort; +infinity for a borrowing queue of weight 0.
  double dominant_share(size_t q, const QuotaVector& extra) const;
  size_t queue_count() const { return specs_.size(); }
  const ClusterQueueSpec& spec(size_t q) const { return specs_[q]; }
  // The figures so far, accounted up to `now`.
  std::vector<QueueUsage> usage_until(double now);
  // One row per queue, at time `t`, appended to `out`.
  void sample(double t, std::vector<QueueSample>& out) const;
  // Queue q's nominal GPU quota as a share of its cohort's (1 outside a cohort; 0 without one).
  double fair_share(size_t q) const;

 private:
  struct Key {
    int neg_priority;
    uint64_t seq;
    uint32_t job;
    bool operator<(const Key& o) const {
      return std::tie(neg_priority, seq, job) < std::tie(o.neg_priority, o.seq, o.job);
    }
  };
  // A queue's pending jobs, grouped by request: within a group, the first in order is the
  // only one worth trying (the rest ask the same).
  struct Pending {
    std::map<QuotaVector, std::set<Key>> groups;
    size_t count = 0;
  };
  // An admitted job as a reclaim candidate: lower priority first, newest admission first.
  struct Admitted {
    int priority;
    uint64_t neg_order;
    uint32_t job;
    bool operator<(const Admitted& o) const {
      return std::tie(priority, neg_order, job) < std::tie(o.priority, o.neg_order, o.job);
    }
  };
  struct Entry {
    uint32_t queue = kNoQueue;
    uint32_t job = 0;
    bool borrows = false;
    double share = 0;
    std::vector<uint32_t> victims;
  };

  Key key_of(uint32_t j) const { return {-work_[j].priority, work_[j].seq, j}; }
  bool counts(size_t q, size_t r) const { return specs_[q].nominal[r].has_value(); }
  int64_t guaranteed(size_t q, size_t r) const;
  int64_t available(size_t q, size_t r) const;
  bool fits(size_t q, const QuotaVector& req) const;
  bool within_nominal(size_t q, const QuotaVector& req) const;
  bool borrows_with(size_t q, const QuotaVector& req) const;
  bool borrowing(size_t q) const { return borrows_with(q, QuotaVector{}); }
  bool head_of(uint32_t q, Entry& e);
  bool reclaim_for(uint32_t q, uint32_t j, std::vector<uint32_t>& victims);
  bool better(const Entry& a, const Entry& b) const;
  void add_pending(uint32_t j);
  void remove_pending(uint32_t j);
  void take(uint32_t j);
  void give_back(uint32_t j);
  void account(double now);

  std::vector<ClusterQueueSpec> specs_;
  bool fair_ = false;
  std::vector<Workload> work_;
  std::vector<State> state_;
  std::vector<uint64_t> admit_order_;  // per job: when last admitted (a counter)
  uint64_t admissions_ = 0;
  std::vector<uint64_t> evicted_pass_;  // per job: the admission pass that last evicted it
  uint64_t pass_ = 0;
  std::vector<uint32_t> cohort_;                // per queue: its cohort's index, or kNoQueue
  std::vector<std::vector<uint32_t>> members_;  // per cohort: its queues
  std::vector<QuotaVector> lendable_;           // per cohort: what its members lend, per resource
  std::vector<double> fair_share_;              // per queue
  std::vector<QuotaVector> usage_;
  std::vector<Pending> pending_;
  std::vector<std::set<Admitted>> admitted_;
  std::vector<QueueUsage> figures_;
  double last_s_ = 0;
  bool dirty_ = false;
  std::vector<Entry> entries_;  // scratch
  std::vector<Key> heads_;      // scratch
};

}  // namespace slicelab
