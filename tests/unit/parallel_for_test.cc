// parallel_for, the one pool every parallel runner uses: results by index whatever the width,
// the lowest failing index's exception re-thrown once every worker stopped, width 1 inline, no
// more threads than indices (this suite also runs under TSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/parallel/cpu_limit.h"
#include "sim/parallel/parallel_for.h"

namespace slicelab {
namespace {

TEST(ParallelFor, ResultsByIndexDoNotDependOnWidth) {
  constexpr size_t kCount = 100;
  for (const int width : {1, 2, 3, 8, 64}) {
    SCOPED_TRACE(width);
    std::vector<long> out(kCount, -1);
    std::vector<std::atomic<int>> calls(kCount);
    parallel_for(kCount, width, [&](size_t i) {
      out[i] = static_cast<long>(i * i) + 7;
      calls[i].fetch_add(1);
    });
    for (size_t i = 0; i < kCount; ++i) {
      EXPECT_EQ(out[i], static_cast<long>(i * i) + 7) << i;
      EXPECT_EQ(calls[i].load(), 1) << i;
    }
  }
}

// Index 30 fails first in time (index 7 sleeps before failing), yet index 7's exception comes
// back: the lowest failing index, so the error does not depend on timing. It comes back only
// after every worker stopped, and every index below it ran.
TEST(ParallelFor, LowestFailingIndexIsRethrownAfterEveryWorkerStops) {
  constexpr size_t kCount = 50;
  std::atomic<int> running{0};
  std::vector<std::atomic<bool>> ran(kCount);
  std::atomic<bool> late_failed{false};
  try {
    parallel_for(kCount, 4, [&](size_t i) {
      running.fetch_add(1);
      ran[i].store(true);
      if (i == 7) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      running.fetch_sub(1);
      if (i == 30) late_failed.store(true);
      if (i == 7 || i == 30) throw std::runtime_error("index " + std::to_string(i));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "index 7");
    EXPECT_EQ(running.load(), 0);
  }
  for (size_t i = 0; i <= 7; ++i) EXPECT_TRUE(ran[i].load()) << i;
  EXPECT_TRUE(late_failed.load());  // the other workers reached index 30 during the sleep
}

TEST(ParallelFor, WidthOneRunsInlineInOrderAndStopsAtTheFirstFailure) {
  const std::thread::id caller = std::this_thread::get_id();
  for (const int width : {1, 0, -3}) {  // below 1 counts as 1
    SCOPED_TRACE(width);
    std::vector<size_t> order;
    bool on_caller = true;
    EXPECT_THROW(parallel_for(10, width,
                              [&](size_t i) {
                                on_caller = on_caller && std::this_thread::get_id() == caller;
                                order.push_back(i);
                                if (i == 3) throw std::out_of_range("three");
                              }),
                 std::out_of_range);
    EXPECT_TRUE(on_caller);
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3}));
  }
}

// Width 64 on 3 indices: exactly 3 threads, all at once (each waits until the other two have
// arrived, which one or two threads could never do), and the caller's is one of them.
TEST(ParallelFor, WidthAboveCountRunsOneThreadPerIndex) {
  constexpr size_t kCount = 3;
  std::atomic<size_t> arrived{0};
  std::atomic<int> met{0};
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_for(kCount, 64, [&](size_t) {
    {
      const std::lock_guard lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < kCount && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    if (arrived.load() == kCount) met.fetch_add(1);
  });
  EXPECT_EQ(ids.size(), kCount);
  EXPECT_TRUE(ids.contains(std::this_thread::get_id()));
  EXPECT_EQ(met.load(), static_cast<int>(kCount));
}

TEST(ParallelFor, NothingToDoCallsNothing) {
  int calls = 0;
  parallel_for(0, 8, [&](size_t) { ++calls; });
  parallel_for(0, [&](size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// The default width is the CPUs this process may use: never more threads than that.
TEST(ParallelFor, DefaultWidthIsTheUsableCpuCount) {
  constexpr size_t kCount = 200;
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::vector<std::atomic<int>> calls(kCount);
  parallel_for(kCount, [&](size_t i) {
    calls[i].fetch_add(1);
    const std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(calls[i].load(), 1) << i;
  EXPECT_GE(ids.size(), 1U);
  EXPECT_LE(ids.size(), static_cast<size_t>(default_jobs()));
}

}  // namespace
}  // namespace slicelab
