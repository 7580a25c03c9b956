// Cuts HTTP client connections from outside the threads that read them: a request past its total
// deadline (a server that answers a byte at a time never trips a per-read timeout), a request its
// owner cancels, or every request at once when the owner shuts down.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace httplib {
class ClientImpl;
}

namespace slicelab::k8s {

class ConnectionWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  // How a watched request was cut, if it was.
  enum class Cut { kNone, kDeadline, kCancelled };

  ConnectionWatchdog() = default;
  // Joins the watchdog's thread; every watch must have been released.
  ~ConnectionWatchdog();
  ConnectionWatchdog(const ConnectionWatchdog&) = delete;
  ConnectionWatchdog& operator=(const ConnectionWatchdog&) = delete;

  // Watches `conn` until release(id): it is stopped (its socket shut down, which ends a blocked
  // read at once) when `deadline` passes, on cancel(id), or on shutdown(); after shutdown() at
  // once. A cut is repeated every few milliseconds until release(), because httplib's stop()
  // reaches only a socket that is already open. The first watch starts the watchdog's thread.
  uint64_t watch(httplib::ClientImpl& conn, Clock::time_point deadline);
  // Ends the watch of `id` and says whether it was cut. Once it returns, the watchdog no longer
  // touches the connection (the caller may destroy it).
  Cut release(uint64_t id);
  // Cuts the watched request `id` now (nothing when it is no longer watched).
  void cancel(uint64_t id);
  // Cuts every watched request, and every later one as soon as it is watched.
  void shutdown();
  bool is_shut_down() const;

 private:
  struct Entry {
    httplib::ClientImpl* conn = nullptr;
    Clock::time_point deadline;
    Cut cut = Cut::kNone;
    bool stopping = false;  // the thread is inside conn->stop(): release() waits
  };
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;      // the thread: a new entry, a cancel, shutdown, exit
  std::condition_variable released_;  // release(): a stop() in progress has returned
  std::map<uint64_t, Entry> entries_;
  uint64_t next_id_ = 1;
  bool shut_down_ = false;
  bool exiting_ = false;
  std::thread thread_;
};

}  // namespace slicelab::k8s
