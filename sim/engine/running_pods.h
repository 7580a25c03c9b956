// The engine's own state for each running pod, by its tenant slot (reused after it leaves): its
// progress (work left, isolation error over its run) and its request as it was bound.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/prefetch.h"

namespace slicelab {

struct LiveProgress {
  double remaining = 0;    // seconds of solo run time still to do
  double last_update = 0;  // simulated time of the last settle
  double error_integral = 0, error_time = 0;

  // Isolation error `error` held for `dt` seconds.
  void accrue_error(double error, double dt) {
    error_integral += error * dt;
    error_time += dt;
  }
  // Progress from the last settle to `now` at `rate` (solo seconds per second) with isolation
  // error `error` (-1: none promised).
  void settle(double now, double rate, double error) {
    const double dt = now - last_update;
    if (error >= 0) accrue_error(error, dt);
    remaining = std::max(0.0, remaining - rate * dt);
    last_update = now;
  }
  // When the work left is done at `rate` from `now`.
  double finish_s(double now, double rate) const { return now + remaining / rate; }
  // Time-weighted isolation error over the run so far, or -1 where none was measured.
  double isolation_error() const { return error_time > 0 ? error_integral / error_time : -1.0; }
};

struct RunningPod {
  LiveProgress progress;
  // Its request as it was bound (MIG's reserve sets the claim of the instance it took;
  // unbinding needs it).
  PodRequest bound;
};

// Contract: start(slot) gives the pod in `slot` fresh progress and its bound request; the
// state stays the slot's until the next start() there. Grows with the slots in use at once.
class RunningPods {
 public:
  RunningPod& start(uint32_t slot, const PodRequest& bound) {
    if (slot >= pods_.size()) pods_.resize(slot + size_t{1});
    pods_[slot] = RunningPod{LiveProgress{}, bound};
    return pods_[slot];
  }
  RunningPod& operator[](uint32_t slot) { return pods_[slot]; }
  size_t slots() const { return pods_.size(); }
  // A hint: the pod in `slot` settles and leaves soon (a record may straddle two lines).
  void prefetch(uint32_t slot) const {
    if (slot >= pods_.size()) return;
    prefetch_for_write(&pods_[slot]);
    prefetch_for_write(&pods_[slot].bound.shape_tag);
  }

 private:
  std::vector<RunningPod> pods_;
};

}  // namespace slicelab
