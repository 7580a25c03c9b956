// The engine's state of each job's gang in one run: members arrived, bound and waiting, started,
// the reservation timers of partial gangs, and what a job held while it waited.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/cluster_state.h"
#include "workloads/job_table.h"

namespace slicelab {

// How a run starts the pods of a gang (engine.gang.mode; docs/training-jobs.md#gang-modes).
enum class GangMode : uint8_t {
  // Volcano's and KAI-Scheduler's gang: one scheduling attempt binds at least min_member pods
  // or none (each member reserved in turn, all unreserved when one does not fit).
  kAllOrNothing,
  // scheduler-plugins' coscheduling: members are scheduled one by one and wait at Permit, bound,
  // until min_member are; a partial gang is released after timeout_s.
  kPermit,
  // No gang scheduling: members bind one by one and hold their GPUs until the rest of the gang
  // runs (a training job's workers wait for their peers), with no timeout.
  kNone,
};
std::string_view to_string(GangMode m);
std::optional<GangMode> gang_mode_from_name(std::string_view name);

struct GangConfig {
  GangMode mode = GangMode::kAllOrNothing;
  // Permit's wait: scheduler-plugins' CoschedulingArgs.PermitWaitingTimeSeconds default (60).
  double timeout_s = 60.0;
  // After a timeout the gang's members are not tried for this long, so that others may take the
  // room it gave back: the denied pod group's expiry, DeniedPGExpirationTimeSeconds (20).
  double backoff_s = 20.0;
};

// A member bound while its gang is not complete: where, since when, its request as bound.
struct HeldMember {
  uint32_t pod = 0;
  NodeId node = 0;
  double since_s = 0;
  PodRequest request;
};

// Contract: prepare(jobs) makes one record per job; a job's members enter the queue only
// once all of them arrived (arrived() says when). held(j) lists the members bound and waiting
// (kPermit, kNone) or bound in the attempt under way (kAllOrNothing). A timer armed for a job
// is void once its epoch moves on (the gang started or was released). Nothing is held for a
// workload without jobs.
class GangTable {
 public:
  struct Job {
    uint32_t arrived = 0;  // members arrived so far
    uint32_t lost = 0;     // of them: never fitting any node
    bool gang_started = false;
    double start_s = -1;             // when the gang started
    double held_gpu_s = 0;           // GPU-seconds members held bound while waiting for the gang
    uint32_t timeouts = 0;           // partial reservations released
    uint32_t epoch = 0;              // voids older timers
    uint32_t tried_at = UINT32_MAX;  // nodes freed (RetryShortcut) at its last failed attempt
    uint64_t seq = 0;                // its queue rank: its last member's arrival
    std::vector<HeldMember> held;
    std::vector<uint32_t> backing_off;  // members released at a timeout, not queued yet
    double denied_until_s = -1;         // after a timeout: no member is tried before then
  };

  void prepare(const JobTable& jobs);
  bool empty() const { return jobs_.empty(); }
  Job& operator[](uint32_t j) { return jobs_[j]; }
  const Job& operator[](uint32_t j) const { return jobs_[j]; }
  size_t size() const { return jobs_.size(); }

  // A member arrived (its arrival rank `seq`); true when it was the last of the job's
  // `members`: the job queues at that rank.
  bool arrived(uint32_t job, uint64_t seq, uint32_t members);

  // The timer of a partial gang (kTimeout) or of its back-off (kBackoff): it fires at `at`
  // unless the job's epoch moved on.
  enum class TimerKind : uint8_t { kTimeout, kBackoff };
  void arm(uint32_t job, double at, TimerKind kind);
  // The earliest live timer's time (stale ones dropped), or infinity.
  double next_timer();
  // Pops the earliest live timer (call after next_timer() returned its time): its job and kind.
  std::pair<uint32_t, TimerKind> pop_timer();

 private:
  struct Timer {
    double at;
    uint32_t job;
    uint32_t epoch;
    TimerKind kind;
    bool operator>(const Timer& o) const { return at > o.at || (at == o.at && job > o.job); }
  };
  std::vector<Job> jobs_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
};

}  // namespace slicelab
