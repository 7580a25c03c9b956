// Pins down OutcomeFeed, the hand-over of a running simulation's final outcomes to the pods.csv
// writer's thread: reads never go back or past what was published, close() waits for a read in
// progress and ends a waiting reader, and the first run's published outcomes are its result's.
// This suite also runs under TSan (scripts/test): the run and the reader share the live arrays.
#include "sim/metrics/outcome_feed.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/streaming_scenario.h"

namespace slicelab {
namespace {

using namespace std::chrono_literals;

TEST(OutcomeFeed, ReadsAtMostWhatWasPublishedAndNeverGoesBack) {
  std::vector<PodOutcome> outcomes(20);
  std::vector<uint16_t> gpus(20);
  OutcomeFeed feed;
  feed.open({outcomes, gpus});
  feed.publish(10);
  std::vector<std::pair<size_t, size_t>> ranges;
  const auto note = [&](const OutcomeFeed::Live& live, size_t from, size_t to) {
    EXPECT_EQ(live.outcomes.data(), outcomes.data());
    EXPECT_EQ(live.gpus.size(), gpus.size());
    ranges.emplace_back(from, to);
  };
  EXPECT_EQ(feed.read(0, 4, note), 4U);  // at most max_pods
  feed.publish(6);                       // lower than before: ignored
  EXPECT_EQ(feed.read(4, 100, note), 10U);
  feed.publish(20);
  EXPECT_EQ(feed.read(10, 100, note), 20U);
  feed.close();
  EXPECT_EQ(feed.read(20, 100, note), 20U);  // closed: nothing more, no wait
  const std::vector<std::pair<size_t, size_t>> want = {{0, 4}, {4, 10}, {10, 20}};
  EXPECT_EQ(ranges, want);
}

TEST(OutcomeFeed, AReaderWaitingForPodsEndsWhenTheFeedCloses) {
  OutcomeFeed feed;  // never opened: a run that failed before it began
  std::atomic<size_t> returned{99};
  std::thread reader([&] { returned = feed.read(0, 10, [](const auto&, size_t, size_t) {}); });
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(returned.load(), 99U);  // still waiting
  feed.close();
  reader.join();
  EXPECT_EQ(returned.load(), 0U);
  feed.close();  // twice: harmless
}

TEST(OutcomeFeed, CloseWaitsForTheReadInProgress) {
  std::vector<PodOutcome> outcomes(8);
  std::vector<uint16_t> gpus(8);
  OutcomeFeed feed;
  feed.open({outcomes, gpus});
  std::mutex m;
  std::condition_variable cv;
  bool reading = false;
  std::atomic<bool> consumed{false};
  std::thread reader([&] {
    size_t from = 0;
    for (;;) {
      const size_t to = feed.read(from, 8, [&](const auto&, size_t, size_t) {
        {
          const std::lock_guard lock(m);
          reading = true;
        }
        cv.notify_all();
        std::this_thread::sleep_for(50ms);
        consumed = true;
      });
      if (to == from) break;
      from = to;
    }
  });
  feed.publish(8);
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return reading; });
  }
  feed.close();
  EXPECT_TRUE(consumed.load());  // close() returned only after the read had ended
  reader.join();
}

// Every field a pods.csv row shows, with its GPUs.
using Row =
    std::tuple<double, double, double, double, int32_t, std::vector<uint16_t>, PodStatus, uint8_t>;

Row row_of(const PodOutcome& o, std::span<const uint16_t> gpus) {
  const auto mine =
      o.gpu_count == 0 ? std::span<const uint16_t>{} : gpus.subspan(o.gpu_begin, o.gpu_count);
  return {o.start_s,         o.finish_s, o.solo_s,
          o.isolation_error, o.node,     std::vector<uint16_t>(mine.begin(), mine.end()),
          o.status,          o.restarts};
}

TEST(OutcomeFeed, TheFirstRunPublishesWhileItRunsWhatItsResultHolds) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("slicelab-outcome-feed-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << testing::streaming_scenario();
  const Scenario sc = load_scenario(path.string(), 3);
  std::filesystem::remove(path);
  const std::vector<size_t> which = {0, 1};

  OutcomeFeed feed;
  std::vector<Row> seen;
  std::atomic<size_t> read_so_far{0};
  std::thread reader([&] {
    size_t from = 0;
    for (;;) {
      const size_t to =
          feed.read(from, 1000, [&](const OutcomeFeed::Live& live, size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i)
              seen.push_back(row_of(live.outcomes[i], live.gpus));
          });
      if (to == from) break;
      from = to;
      read_so_far = from;
    }
  });
  // The run waits at its progress reports until the reader has read something, so that the
  // reads happen while it runs however the threads are scheduled.
  const auto progress = [&](size_t k, double share) {
    if (k != 0 || share >= 1.0) return;
    for (int i = 0; i < 2000 && read_so_far.load() == 0; ++i) std::this_thread::sleep_for(5ms);
  };
  const std::vector<RunResult> results = run_policies(sc, which, 2, progress, &feed);
  reader.join();

  ASSERT_EQ(results.size(), 2U);
  const RunResult& first = results[0];
  EXPECT_GE(seen.size(), 4096U);  // at least one step was published before the run ended
  ASSERT_LE(seen.size(), first.pods.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    ASSERT_EQ(seen[i], row_of(first.pods[i], first.pod_gpus)) << "pod " << i;
    ASSERT_EQ(first.pods[i].status, PodStatus::kCompleted);
    ASSERT_EQ(first.reason_of(i), "");
  }
}

}  // namespace
}  // namespace slicelab
