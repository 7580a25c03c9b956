// The recorder's memory stays flat over a long stream (docs/record.md, "Memory"): a million
// watch events of churning pods (10,000 live at a time, each created, modified and deleted many
// times) through its whole write path, in process. Its peak resident set after the first
// 100,000 events and after the millionth differ by less than the table of live pods could take.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>

#include "backends/k8s/cluster_recorder.h"
#include "backends/k8s/recording_dedup.h"
#include "backends/k8s/recording_folder.h"
#include "backends/k8s/recording_resume.h"
#include "backends/k8s/recording_writer.h"
#include "tests/support/temp_files.h"

namespace slicelab::k8s {
namespace {

using nlohmann::json;

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

class RecorderMemoryTest : public slicelab::testing::TempFilesTest {};

TEST_F(RecorderMemoryTest, AMillionEventsInFlatMemory) {
  constexpr int kLive = 10'000;  // pods live at once
  constexpr int kSteps = 10;     // per life: ADDED, 8 MODIFIED, DELETED
  constexpr int kLives = 10;     // lives per pod slot
  constexpr uint64_t kEvents = uint64_t{kLive} * kSteps * kLives;
  static_assert(kEvents == 1'000'000);
  const std::filesystem::path rec = dir_ / "rec";
  RecordingHeader header;
  header.started = recording_timestamp();
  header.slicelab = "test";
  RecordingDedup dedup;
  const RecordingResume r = open_recording_folder(rec, header, dedup);
  RecordingWriterOptions options;
  options.rotate_bytes = uint64_t{8} << 20;
  RecordingWriter writer(rec, r.segment, r.keep_bytes, r.next_seq, options);
  ClusterRecorder recorder(writer, dedup, false);
  recorder.list_started(WatchKind::Pod);
  recorder.synced(WatchKind::Pod);

  json pod = {
      {"metadata",
       {{"namespace", "churn"},
        {"labels", {{"app", "churn"}, {"team", "ml"}}},
        {"annotations", {{"nvidia.com/gpu-index", "0"}}},
        {"creationTimestamp", "2026-11-30T12:00:00Z"}}},
      {"spec",
       {{"schedulerName", "default-scheduler"},
        {"containers", json::array({{{"name", "main"},
                                     {"image", "cuda:12"},
                                     {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}},
      {"status", {{"phase", "Pending"}}}};
  uint64_t rv = 1000, events = 0;
  long after_warmup = 0;
  uint32_t removed_below = 1;
  const auto t0 = std::chrono::steady_clock::now();
  for (int life = 0; life < kLives; ++life) {
    for (int step = 0; step < kSteps; ++step) {
      for (int slot = 0; slot < kLive; ++slot) {
        json& meta = pod["metadata"];
        meta["name"] = "p" + std::to_string(slot);
        meta["uid"] = "uid-" + std::to_string(life) + "-" + std::to_string(slot);
        meta["resourceVersion"] = std::to_string(++rv);
        pod["spec"]["nodeName"] = step == 0 ? "" : "node-" + std::to_string(slot % 500);
        pod["status"]["phase"] = step < 8 ? "Running" : "Succeeded";
        recorder.apply(WatchKind::Pod,
                       step == 0            ? WatchEvent::Added
                       : step == kSteps - 1 ? WatchEvent::Deleted
                                            : WatchEvent::Modified,
                       pod);
        if (++events == 100'000) after_warmup = peak_rss_kib();
      }
      recorder.tick();
      // The test, not the recorder, removes closed segments so that its disk use stays small:
      // the recorder never reads a segment again once it closed it.
      for (; removed_below < writer.segment(); ++removed_below)
        std::filesystem::remove(recording_segment_path(rec, removed_below));
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long at_end = peak_rss_kib();
  recorder.close();
  ASSERT_TRUE(recorder.error().empty()) << recorder.error();
  const RecorderStats s = recorder.stats();
  EXPECT_EQ(s.lines, 1 + 1 + kEvents);  // START, RELIST, every event
  EXPECT_EQ(s.events, kEvents);
  EXPECT_EQ(s.pods, 0u);  // every life ended
  EXPECT_EQ(writer.next_seq(), s.lines + 1);
  std::printf(
      "recorder: %llu events in %.1f s; peak RSS %ld KiB after 100,000 events, %ld KiB "
      "after 1,000,000 (%u segments)\n",
      static_cast<unsigned long long>(events), seconds, after_warmup, at_end, writer.segment());
  // Flat: the table holds 10,000 live pods at most; 16 MiB is far below what keeping the
  // 900,000 later events (about 300 MB of lines) would take.
  EXPECT_LT(at_end - after_warmup, 16 * 1024);
}

}  // namespace
}  // namespace slicelab::k8s
