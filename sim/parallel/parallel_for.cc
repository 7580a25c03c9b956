#include "sim/parallel/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/parallel/cpu_limit.h"

namespace slicelab {

void parallel_for(size_t count, int width, const std::function<void(size_t)>& fn) {
  const size_t threads = std::min(static_cast<size_t>(std::max(width, 1)), count);
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  size_t failed_index = count;  // guarded by mu, as is error
  std::exception_ptr error;
  const auto worker = [&] {
    // The flag is read before an index is taken, never after: an index once taken always runs,
    // so every index below the lowest failing one has run when the workers stop.
    while (!failed.load()) {
      const size_t i = next++;
      if (i >= count) return;
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard lock(mu);
        if (i < failed_index) {
          failed_index = i;
          error = std::current_exception();
        }
        failed.store(true);
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }  // joins
  if (error) std::rethrow_exception(error);
}

void parallel_for(size_t count, const std::function<void(size_t)>& fn) {
  parallel_for(count, default_jobs(), fn);
}

}  // namespace slicelab
