#include "sim/metrics/outcome_feed.h"

namespace slicelab {

void OutcomeFeed::open(Live live) {
  const std::lock_guard lock(m_);
  live_ = live;
}

void OutcomeFeed::publish(size_t final_pods) {
  {
    const std::lock_guard lock(m_);
    if (final_pods <= final_) return;
    final_ = final_pods;
  }
  changed_.notify_all();
}

void OutcomeFeed::close() {
  std::unique_lock lock(m_);
  closed_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return !reading_; });
}

void OutcomeFeed::end_read() {
  {
    const std::lock_guard lock(m_);
    reading_ = false;
  }
  changed_.notify_all();
}

}  // namespace slicelab
