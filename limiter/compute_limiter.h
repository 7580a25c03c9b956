// Compute limiter: keeps one tenant's share of GPU time at its cap by charging every launch the
// GPU time it really takes (measured) and pacing launches before they reach the device.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace slicelab::limiter {

// A virtual-time rate limiter (GCRA, the token bucket written as one atomic): `tat_` is the
// time at which everything charged so far has been paid for at the tenant's share. A launch may
// go when tat - now <= burst; a charge of g ns of GPU time moves tat by g / share. Because the
// state is a single number driven by measured GPU time, not by a polled utilisation figure, it
// converges to the cap without the overshoot-and-starve swings of polling controllers.
class ComputeLimiter {
 public:
  struct Config {
    double share = 1.0;              // fraction of GPU time, (0, 1]; >= 1 disables the limiter
    int64_t burst_ns = 2'000'000;    // credit a tenant may run ahead by
    int64_t min_sleep_ns = 100'000;  // debts below this are carried, not slept (sleep cost)
    int64_t max_sleep_ns = 1'000'000'000;  // one throttle never sleeps longer than this
  };

  ComputeLimiter() : ComputeLimiter(Config{}) {}
  explicit ComputeLimiter(Config c);
  void configure(Config c);

  // Keeps the state in `shared` instead (e.g. in memory shared by a container's processes);
  // the caller owns it, and it is not reset.
  void bind(std::atomic<int64_t>* shared) { tat_ = shared ? shared : &own_; }

  bool unlimited() const { return unlimited_; }
  double share() const { return cfg_.share; }

  // Before a launch at `now_ns`: how long the caller must wait first (0: go now). Lock-free.
  int64_t admit(int64_t now_ns) const;
  // Charges `gpu_ns` of expected GPU time for a launch issued at `now_ns`.
  void charge(int64_t now_ns, int64_t gpu_ns);
  // Replaces an earlier charge by the measured GPU time of the same launch.
  void correct(int64_t charged_ns, int64_t measured_ns);
  // Wall-clock cost of `gpu_ns` of GPU time at this share (gpu_ns / share). Inline with the
  // estimator below: they run on every launch.
  int64_t wall_cost(int64_t gpu_ns) const {
    if (gpu_ns == 0) return 0;
    // Never negative, so + 0.5 rounds; lround would be a library call on every launch.
    // NOLINTNEXTLINE(bugprone-incorrect-roundings)
    return static_cast<int64_t>(static_cast<double>(gpu_ns) * inv_share_ + 0.5);
  }
  // Cost that may still be charged, at `now_ns`, before a launch would have to wait.
  int64_t credit(int64_t now_ns) const;
  // Charges an already converted cost without the idle clamp (the fast path: no clock read).
  void add(int64_t cost) {
    if (!unlimited_ && cost != 0) tat_->fetch_add(cost, std::memory_order_relaxed);
  }

 private:
  Config cfg_;
  bool unlimited_ = true;
  double inv_share_ = 1.0;
  std::atomic<int64_t> own_{INT64_MIN / 2};
  std::atomic<int64_t>* tat_ = &own_;
};

// Per-thread estimates of launch durations, keyed by (function, grid size): a launch whose
// duration is not measured is charged its key's running estimate, so only one launch in
// `measure_every` of a known key pays for timing events. Direct-mapped and fixed-size: no
// allocation and no lock on the launch path.
class DurationEstimator {
 public:
  static constexpr size_t kSlots = 64;
  explicit DurationEstimator(int measure_every = 1)
      : every_(measure_every < 1 ? 1 : measure_every) {}
  // What the pacer needs to know about one launch, from one look at the key's slot.
  struct Lookup {
    bool measure = false;  // time this launch (unknown key, or its turn in the sampling)
    bool known = false;    // the key has a measured estimate
    int64_t estimate_ns = 0;
  };
  Lookup lookup(uint64_t key) {
    Slot& s = slots_[index(key)];
    if (s.key != key) [[unlikely]]
      s = Slot{key, 0, 0, false};
    if (!s.known || s.until_measure == 0) {
      s.until_measure = static_cast<uint32_t>(every_ - 1);
      // For a key not measured yet, the running estimate over all keys (charging 0 would let
      // a stream of new kernels run ahead of its measurements).
      return {true, s.known, s.known ? s.ewma_ns : fallback_ns_};
    }
    --s.until_measure;
    return {false, true, s.ewma_ns};
  }
  // Running estimate for the key, or the running estimate over all keys for an unknown one.
  int64_t estimate(uint64_t key) const {
    const Slot& s = slots_[index(key)];
    return s.key == key && s.known ? s.ewma_ns : fallback_ns_;
  }
  void observe(uint64_t key, int64_t measured_ns);
  // Whether the key has a measured estimate (an unknown kernel takes the pacer's slow path,
  // which collects measurements, so that a stream of new kernels is not charged on a guess).
  bool known(uint64_t key) const {
    const Slot& s = slots_[index(key)];
    return s.key == key && s.known;
  }

 private:
  struct Slot {
    uint64_t key = 0;
    int64_t ewma_ns = 0;
    uint32_t until_measure = 0;  // launches left before the next timed one (no division)
    bool known = false;
  };
  static size_t index(uint64_t key) { return (key * 0x9E3779B97F4A7C15ULL) >> 58; }
  Slot slots_[kSlots];
  int64_t fallback_ns_ = 0;
  int every_;
};

// One thread's pacing of launches: admit (sleep while in debt), charge the estimate, time the
// launch with the probe when sampled, and correct the charge when the timing comes back.
// Probe supplies the clock, sleeping and the timing of launches (CUDA events in the interposer,
// a simulated device in tests and the simulator):
//   int64_t now(); void sleep(int64_t ns);
//   void begin(size_t slot, Stream); void end(size_t slot, Stream);
//   int64_t elapsed(size_t slot, bool block);   // -1 while not complete (when !block)
template <class Probe, size_t kRing = 32>
class LaunchPacer {
 public:
  struct Outcome {
    int64_t throttled_ns = 0;
    bool measured = false;
  };

  LaunchPacer(ComputeLimiter& limiter, Probe& probe, int measure_every)
      : limiter_(limiter), probe_(probe), est_(measure_every) {}

  // Runs `launch()` (which returns true on success) under the limiter.
  template <class Stream, class Launch>
  Outcome launch(uint64_t key, Stream stream, Launch&& launch) {
    Outcome out;
    const DurationEstimator::Lookup look = est_.lookup(key);
    out.measured = look.measure;
    const int64_t charged = look.estimate_ns;
    const int64_t cost = limiter_.wall_cost(charged);
    if (cost < credit_ && look.known) [[likely]] {
      // Fast path, no clock: the credit seen at the last check cannot have shrunk since (time
      // only adds to it), so this launch is admitted; only the charge is recorded.
      // The charge is kept here and added to the shared state at the next slow path: other
      // threads see it late by at most this thread's credit (about one burst).
      credit_ -= cost;
      unflushed_ += cost;
    } else {
      limiter_.add(unflushed_);
      unflushed_ = 0;
      drain(false);
      int64_t now = probe_.now();
      // One sleep is at most max_sleep_ns; the debt is re-read after each, so a debt that grew
      // meanwhile (late measurements) is paid in full before the launch.
      for (int64_t wait = limiter_.admit(now); wait > 0; wait = limiter_.admit(now)) {
        probe_.sleep(wait);
        out.throttled_ns += wait;
        now = probe_.now();
      }
      limiter_.charge(now, charged);
      credit_ = limiter_.credit(now);
    }
    if (out.measured && count_ > 0) {
      drain(false);                          // collect what finished, without waiting
      if (count_ == kRing) drain_one(true);  // back-pressure: the device is far behind
    }
    const size_t slot = (head_ + count_) % kRing;
    if (out.measured) probe_.begin(slot, stream);
    const bool ok = launch();
    if (!ok) {
      limiter_.correct(charged, 0);
      out.measured = false;
      return out;
    }
    if (out.measured) {
      probe_.end(slot, stream);
      ring_[slot] = Pending{key, charged};
      ++count_;
    }
    return out;
  }

  // Collects finished timings; with block, waits for all of them.
  void drain(bool block) {
    while (count_ > 0 && drain_one(block)) {
    }
  }
  size_t pending() const { return count_; }
  const DurationEstimator& estimator() const { return est_; }

 private:
  struct Pending {
    uint64_t key = 0;
    int64_t charged_ns = 0;
  };
  bool drain_one(bool block) {
    const int64_t measured = probe_.elapsed(head_, block);
    if (measured < 0) return false;
    const Pending& p = ring_[head_];
    est_.observe(p.key, measured);
    limiter_.correct(p.charged_ns, measured);
    head_ = (head_ + 1) % kRing;
    --count_;
    return true;
  }

  ComputeLimiter& limiter_;
  Probe& probe_;
  DurationEstimator est_;
  Pending ring_[kRing];
  size_t head_ = 0;
  size_t count_ = 0;
  int64_t credit_ = 0;     // wall-cost this thread may charge before it must read the clock again
  int64_t unflushed_ = 0;  // fast-path charges not yet added to the limiter
};

}  // namespace slicelab::limiter
