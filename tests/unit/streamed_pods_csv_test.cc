// Pins down pods.csv written while the runs go on (reports/streamed_pods_csv.h): the file holds
// write_pods_csv's bytes whatever was streamed (quoted names and classes, pods that never fit,
// the restarts column, a second policy), most of a long first run is written before it ends,
// nothing is left behind when the runs fail, and a write that fails is an error.
#include "reports/streamed_pods_csv.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "reports/results_writer.h"
#include "sim/scenario/run_policies.h"
#include "tests/support/streaming_scenario.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

class StreamedPodsCsvTest : public testing::TempFilesTest {
 protected:
  // Whether the temporary folder's file system has unnamed files (O_TMPFILE; some network and
  // older overlay file systems do not, and then nothing is streamed: the CLI's outputs-digest
  // test covers that path).
  bool has_unnamed_files() const {
    const int fd = ::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);  // NOLINT
    if (fd < 0) return false;
    ::close(fd);
    return true;
  }
  Scenario scenario(const std::string& extra_shape = "", const std::string& engine = "") {
    return load_scenario(write("s.yaml", testing::streaming_scenario(extra_shape, engine)), 3);
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Streams the runs of `sc`, links the file at dir_/pods.csv; returns the rows streamed. With
  // `wait`, the first run waits at its progress reports until some rows were streamed, so that
  // they are written while it runs however the threads are scheduled.
  size_t stream(const Scenario& sc, std::vector<RunResult>& results, bool wait) {
    StreamedPodsCsv pods(dir_, sc, sc.policies.front().name);
    EXPECT_NE(pods.feed(), nullptr) << "the temporary folder's file system has no O_TMPFILE";
    const std::vector<size_t> which = {0, 1};
    const auto progress = [&](size_t k, double share) {
      if (!wait || k != 0 || share >= 1.0) return;
      for (int i = 0; i < 2000 && pods.rows_streamed() == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    };
    results = run_policies(sc, which, 2, progress, pods.feed());
    pods.finish(results);
    EXPECT_TRUE(pods.link_to(dir_ / "pods.csv"));
    return pods.rows_streamed();
  }
};

TEST_F(StreamedPodsCsvTest, SameBytesAsWritePodsCsvAndMostOfTheFirstRunWrittenWhileItRan) {
  if (!has_unnamed_files()) GTEST_SKIP() << "no O_TMPFILE in " << dir_ << ": nothing to stream";
  const Scenario sc = scenario();
  std::vector<RunResult> results;
  const size_t streamed = stream(sc, results, true);
  EXPECT_EQ(read(dir_ / "pods.csv"), pods_csv(sc, results));
  // Pods complete nearly in order here: a step of 4,096 or more was published during the run.
  EXPECT_GE(streamed, 4096U);
  EXPECT_LE(streamed, sc.pods.size());
}

TEST_F(StreamedPodsCsvTest, PodsThatNeverFitAndRestartsKeepTheBytes) {
  if (!has_unnamed_files()) GTEST_SKIP() << "no O_TMPFILE in " << dir_ << ": nothing to stream";
  // A 16-GPU pod fits no node: its row carries a reason, and it stops the streamed prefix.
  const Scenario sc = scenario(R"(      - name: huge
        weight: 1
        gpu_count: 16
        gpu_milli: 1000
        gpu_memory_mib: 1000
        cpu_milli: 1000
        memory_mib: 1000
        duration: 60
)",
                               "engine:\n  restart: {policy: OnFailure, backoff: 10s}\n");
  std::vector<RunResult> results;
  stream(sc, results, false);
  const std::string text = read(dir_ / "pods.csv");
  EXPECT_EQ(text, pods_csv(sc, results));
  EXPECT_NE(text.find("no node could ever hold it"), std::string::npos);
  const std::string head = text.substr(0, text.find('\n'));
  EXPECT_TRUE(head.ends_with(",restarts")) << head;
}

TEST_F(StreamedPodsCsvTest, NothingIsStreamedWhereTheFolderIsMissing) {
  const Scenario sc = scenario();
  StreamedPodsCsv pods(dir_ / "not-there", sc, sc.policies.front().name);
  EXPECT_EQ(pods.feed(), nullptr);
  pods.finish({});
  EXPECT_FALSE(pods.link_to(dir_ / "pods.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "pods.csv"));
}

TEST_F(StreamedPodsCsvTest, RunsThatFailLeaveNoFileBehind) {
  if (!has_unnamed_files()) GTEST_SKIP() << "no O_TMPFILE in " << dir_ << ": nothing to stream";
  const Scenario sc = scenario();
  {
    StreamedPodsCsv pods(dir_, sc, sc.policies.front().name);
    ASSERT_NE(pods.feed(), nullptr);
    pods.feed()->publish(0);  // a run that never got going; its feed is closed by the writer
  }
  std::vector<fs::path> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename());
  EXPECT_EQ(left, std::vector<fs::path>{"s.yaml"});
}

TEST_F(StreamedPodsCsvTest, AWriteThatFailsIsAnError) {
  if (!has_unnamed_files()) GTEST_SKIP() << "no O_TMPFILE in " << dir_ << ": nothing to stream";
  const Scenario sc = scenario();
  // Files may grow to 64 KiB only: writes past it fail with EFBIG (SIGXFSZ ignored).
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = rlim_t{64} * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    std::vector<RunResult> results;
    StreamedPodsCsv pods(dir_, sc, sc.policies.front().name);
    const std::vector<size_t> which = {0, 1};
    results = run_policies(sc, which, 2, {}, pods.feed());
    pods.finish(results);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(error, "cannot write pods.csv: File too large");
}

}  // namespace
}  // namespace slicelab
