#include "backends/k8s/bounded_worker_pool.h"

#include <algorithm>
#include <utility>

namespace slicelab::k8s {

BoundedWorkerPool::BoundedWorkerPool(int threads, std::size_t queue_limit)
    : queue_limit_(queue_limit) {
  const int n = std::max(1, threads);
  threads_.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
}

BoundedWorkerPool::~BoundedWorkerPool() {
  stop(std::chrono::milliseconds(0));
  for (std::thread& t : threads_) t.join();
}

bool BoundedWorkerPool::try_submit(std::function<void()>& task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= queue_limit_) return false;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

bool BoundedWorkerPool::stop(std::chrono::milliseconds grace) {
  std::deque<std::function<void()>> dropped;
  std::unique_lock lock(mu_);
  stopping_ = true;
  dropped.swap(queue_);
  wake_.notify_all();
  const bool done = idle_.wait_for(lock, grace, [this] { return running_ == 0; });
  lock.unlock();
  dropped.clear();  // outside the lock: a task's captures may do work when destroyed
  return done;
}

std::size_t BoundedWorkerPool::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

std::size_t BoundedWorkerPool::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

void BoundedWorkerPool::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    try {
      task();
    } catch (...) {  // NOLINT(bugprone-empty-catch): documented; the server's tasks catch theirs
    }
    task = nullptr;  // its captures go before the pool counts it as done
    lock.lock();
    --running_;
    if (running_ == 0) idle_.notify_all();
  }
}

}  // namespace slicelab::k8s
