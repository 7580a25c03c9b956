// ConnectionWatchdog (connection_watchdog.h): one thread that sleeps until the nearest deadline
// and stops the connections whose time is up or that were cancelled.
#include "backends/k8s/connection_watchdog.h"

#include <httplib.h>

#include <vector>

namespace slicelab::k8s {
namespace {

// How often a cut connection is stopped again until its request lets go of it: short, so that a
// request caught between connecting and reading is ended within a few milliseconds.
constexpr auto kRestopInterval = std::chrono::milliseconds(5);

}  // namespace

ConnectionWatchdog::~ConnectionWatchdog() {
  {
    std::lock_guard lock(mutex_);
    exiting_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t ConnectionWatchdog::watch(httplib::ClientImpl& conn, Clock::time_point deadline) {
  std::lock_guard lock(mutex_);
  const uint64_t id = next_id_++;
  Entry& e = entries_[id];
  e.conn = &conn;
  e.deadline = deadline;
  if (shut_down_) e.cut = Cut::kCancelled;
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  wake_.notify_all();
  return id;
}

ConnectionWatchdog::Cut ConnectionWatchdog::release(uint64_t id) {
  std::unique_lock lock(mutex_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return Cut::kNone;
  released_.wait(lock, [&] { return !it->second.stopping; });
  const Cut cut = it->second.cut;
  entries_.erase(it);
  return cut;
}

void ConnectionWatchdog::cancel(uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end() || it->second.cut != Cut::kNone) return;
    it->second.cut = Cut::kCancelled;
  }
  wake_.notify_all();
}

void ConnectionWatchdog::shutdown() {
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
    for (auto& [id, e] : entries_) {
      if (e.cut == Cut::kNone) e.cut = Cut::kCancelled;
    }
  }
  wake_.notify_all();
}

bool ConnectionWatchdog::is_shut_down() const {
  std::lock_guard lock(mutex_);
  return shut_down_;
}

void ConnectionWatchdog::run() {
  std::unique_lock lock(mutex_);
  std::vector<uint64_t> to_stop;
  while (!exiting_) {
    const Clock::time_point now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    to_stop.clear();
    for (auto& [id, e] : entries_) {
      if (e.cut == Cut::kNone && now >= e.deadline) e.cut = Cut::kDeadline;
      if (e.cut != Cut::kNone) {
        to_stop.push_back(id);
      } else if (e.deadline < next) {
        next = e.deadline;
      }
    }
    // stop() may wait for httplib's socket mutex (held while the request connects): never
    // under our lock, so that watch() and release() of other requests go on meanwhile.
    for (const uint64_t id : to_stop) {
      const auto it = entries_.find(id);
      if (it == entries_.end()) continue;
      it->second.stopping = true;
      httplib::ClientImpl* conn = it->second.conn;
      lock.unlock();
      conn->stop();
      lock.lock();
      entries_.at(id).stopping = false;  // release() waits for this, so the entry is still there
      released_.notify_all();
    }
    if (!to_stop.empty()) {
      wake_.wait_for(lock, kRestopInterval);
    } else if (next == Clock::time_point::max()) {
      wake_.wait(lock);
    } else {
      wake_.wait_until(lock, next);
    }
  }
}

}  // namespace slicelab::k8s
