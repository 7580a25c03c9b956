// A fixed set of threads running tasks from a queue of bounded length: what the HTTP server runs
// its handlers on, so that a handler that blocks never holds up the I/O thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace slicelab::k8s {

class BoundedWorkerPool {
 public:
  // `threads` workers (at least 1) and at most `queue_limit` tasks waiting for one.
  BoundedWorkerPool(int threads, std::size_t queue_limit);
  ~BoundedWorkerPool();  // stop(0) and joins the workers: waits for running tasks
  BoundedWorkerPool(const BoundedWorkerPool&) = delete;
  BoundedWorkerPool& operator=(const BoundedWorkerPool&) = delete;

  // Queues `task`; false (and `task` untouched) when the queue is full or the pool stopped. A task
  // must not throw: one that does is dropped with its exception (the server's tasks catch theirs).
  bool try_submit(std::function<void()>& task);
  // Takes no more tasks and drops the queued ones (destroyed on this thread), then waits up to
  // `grace` for the running ones; true when none is running any more. Workers that are still
  // busy are joined by the destructor.
  bool stop(std::chrono::milliseconds grace);

  std::size_t queued() const;
  std::size_t running() const;

 private:
  void work();

  const std::size_t queue_limit_;
  mutable std::mutex mu_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace slicelab::k8s
