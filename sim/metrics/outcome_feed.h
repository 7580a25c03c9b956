// The leading pods of a running simulation whose outcomes are final, handed to one reader on
// another thread while the run goes on: the pods.csv writer writes their rows before it ends.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Contract. The run opens the feed with its live outcomes and GPU slots (neither moved or
// resized until it closes), publishes n as its first n pods become final (completed without a
// reason: nothing writes such an outcome again during the run; n only grows), and closes it
// before it changes any outcome for its result, and on every way out (closing twice is
// harmless). The reader's read() waits until pods beyond `from` are final or the feed is closed,
// then hands it the newly final pods' live outcomes with the GPU slots their gpu_begin indexes.
// Once close() has returned, no read() touches the live data again. One reader at a time.
class OutcomeFeed {
 public:
  struct Live {
    std::span<const PodOutcome> outcomes;
    std::span<const uint16_t> gpus;  // PodOutcome::gpu_begin indexes these during the run
  };

  // --- the run's side ---
  void open(Live live);
  void publish(size_t final_pods);
  // Waits for a read in progress to end (at most one chunk of rows).
  void close();

  // --- the reader's side ---
  // Calls consume(live, from, to) outside the feed's lock for the final pods [from, to), at
  // most `max_pods` of them, and returns `to`; returns `from` once the feed is closed.
  template <typename Consume>
  size_t read(size_t from, size_t max_pods, Consume&& consume) {
    Live live;
    size_t to = 0;
    {
      std::unique_lock lock(m_);
      changed_.wait(lock, [&] { return closed_ || final_ > from; });
      if (closed_) return from;
      reading_ = true;
      live = live_;
      to = from + std::min(final_ - from, max_pods);
    }
    const ReadDone done(*this);  // close() waits for this, even if consume throws
    consume(live, from, to);
    return to;
  }

 private:
  class ReadDone {
   public:
    explicit ReadDone(OutcomeFeed& feed) : feed_(feed) {}
    ~ReadDone() { feed_.end_read(); }
    ReadDone(const ReadDone&) = delete;
    ReadDone& operator=(const ReadDone&) = delete;

   private:
    OutcomeFeed& feed_;
  };
  void end_read();

  std::mutex m_;
  std::condition_variable changed_;
  Live live_;
  size_t final_ = 0;
  bool closed_ = false;
  bool reading_ = false;
};

}  // namespace slicelab
