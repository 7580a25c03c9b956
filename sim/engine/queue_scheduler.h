// The scheduling passes over the pending queue: strict FIFO (a blocked head blocks everyone
// behind it) or backfill (later pods may pass it), and which pods an arrival tries at once.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine/pending_queue.h"
#include "sim/pod_request_view.h"
#include "sim/sharing/pod_request.h"

namespace slicelab {

// One placement attempt, made by the engine: true when the pod left the queue (placed, or
// placed and failed at once), false when it must wait.
class PlacementAttempt {
 public:
  virtual bool try_place(uint32_t pod) = 0;
  // After a failed attempt: whether any pod of the same request would have failed too (a gang
  // member's attempt fails for its gang's sake, which says nothing about its shape).
  virtual bool failure_shared_by_shape(uint32_t /*pod*/) const { return true; }

 protected:
  ~PlacementAttempt() = default;
};

// Contract: a pod is in the queue from its arrival until an attempt succeeds; the queue is
// ordered by priority (higher first), then arrival. An attempt that failed with nothing freed
// since costs the engine nothing (its retry shortcut), so a pass may follow any event.
class QueueScheduler {
 public:
  explicit QueueScheduler(bool backfill) : backfill_(backfill) {}
  // The pods' requests (by pod index), which stay in place for the run.
  void prepare(PodRequestView requests);

  // A pod arrived (`seq`: its arrival rank): queued, and tried now as the rules allow.
  void arrive(uint32_t pod, int priority, uint64_t seq, PlacementAttempt& place,
              bool skip_failed_shapes);
  // Queues the pod without an attempt (a gang's members, tried by the caller).
  void push(uint32_t pod, int priority, uint64_t seq) { pending_.push(pod, priority, seq); }
  // One pass over the waiting pods after capacity may have been freed.
  void schedule(PlacementAttempt& place, bool skip_failed_shapes);

  const PendingQueue& pending() const { return pending_; }
  // Takes a waiting pod out of the queue (a replica scaled down before it was placed); false when
  // it was not waiting. Scans the queue: for rare removals only.
  bool withdraw(uint32_t pod);

 private:
  bool backfill_;
  PodRequestView requests_;
  PendingQueue pending_;
  std::vector<PodRequest> failed_shapes_;  // of this backfill pass
};

}  // namespace slicelab
