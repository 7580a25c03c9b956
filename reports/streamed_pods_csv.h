// pods.csv written while a compare's runs go on: the first run's rows as its pods complete, on a
// thread of its own, so that a single long run's file is mostly written when the run ends.
#pragma once

#include <atomic>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "sim/metrics/outcome_feed.h"
#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// The header and the first run's leading final rows (OutcomeFeed) go into an anonymous file
// (O_TMPFILE) in the folder that will hold the results folder, as the run publishes them; the
// other rows once the runs have ended (finish); the file is then linked into the results
// folder (link_to). The bytes are write_pods_csv's. Where that folder does not exist yet or its
// file system has no anonymous files, nothing is streamed: feed() is null and link_to false, and
// the caller writes pods.csv as before. A killed process leaves nothing behind: the file has no
// name until it is linked.
class StreamedPodsCsv {
 public:
  // `parent`: where the results folder will be made; `first_policy`: the first run's policy.
  StreamedPodsCsv(const std::filesystem::path& parent, const Scenario& scenario,
                  std::string_view first_policy);
  ~StreamedPodsCsv();
  StreamedPodsCsv(const StreamedPodsCsv&) = delete;
  StreamedPodsCsv& operator=(const StreamedPodsCsv&) = delete;

  // For the first run (RunInputs::feed); null when nothing is streamed.
  OutcomeFeed* feed() { return fd_ >= 0 ? &feed_ : nullptr; }
  // After the runs, with their results (the first is the fed run's): the rows not yet written.
  // Throws when a write failed.
  void finish(std::span<const RunResult> runs);
  // Gives the finished file the name `path` (in the same file system); false when there is none
  // or the link fails.
  bool link_to(const std::filesystem::path& path) const;
  // The first run's rows written so far while it ran.
  size_t rows_streamed() const { return streamed_.load(std::memory_order_relaxed); }

 private:
  void stream_first_run();
  void write_all(std::string_view bytes);

  const Scenario& scenario_;
  std::string policy_;  // as a CSV field
  int fd_ = -1;
  OutcomeFeed feed_;
  std::thread thread_;
  std::atomic<size_t> streamed_{0};
  int error_ = 0;  // errno of the first failed write: the thread's until it is joined
  bool finished_ = false;
};

}  // namespace slicelab
