// Parallel policy runs: outcomes must not depend on the number of threads or on run order, and
// the progress line may be fed from many threads at once (this suite also runs under TSan, so it
// needs only the simulator: the written results are compared in run_policies_results_test.cc).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cli/progress_line.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/policy_run_fixtures.h"

namespace slicelab {
namespace {

using testing::all_policies;
using testing::scenario_path;

// Every field of a pod's outcome (the reason by its text).
auto outcome_fields(const RunResult& r, size_t pod) {
  const PodOutcome& o = r.pods[pod];
  return std::make_tuple(o.start_s, o.finish_s, o.solo_s, o.isolation_error, o.node, o.gpu_begin,
                         r.reason_of(pod), o.gpu_count, o.status, o.failure, o.restarts);
}

TEST(RunPolicies, ThreadCountDoesNotChangeOutcomes) {
  const Scenario sc = load_scenario(scenario_path("quickstart.yaml"));
  const auto which = all_policies(sc);
  std::atomic<int> progress_calls{0};
  const auto serial = run_policies(sc, which, 1);
  const auto parallel =
      run_policies(sc, which, 4, [&](size_t, double) { progress_calls.fetch_add(1); });
  ASSERT_EQ(serial.size(), sc.policies.size());
  ASSERT_EQ(parallel.size(), sc.policies.size());
  for (size_t i = 0; i < parallel.size(); ++i) {
    SCOPED_TRACE(sc.policies[i].name);
    EXPECT_EQ(parallel[i].policy, sc.policies[i].name);
    ASSERT_EQ(serial[i].pods.size(), parallel[i].pods.size());
    for (size_t p = 0; p < serial[i].pods.size(); ++p) {
      EXPECT_TRUE(outcome_fields(serial[i], p) == outcome_fields(parallel[i], p)) << "pod " << p;
    }
    EXPECT_EQ(serial[i].pod_gpus, parallel[i].pod_gpus);
    const RunSummary& a = serial[i].summary;
    const RunSummary& b = parallel[i].summary;
    EXPECT_EQ(a.completed, b.completed);
    EXPECT_EQ(a.failed, b.failed);
    EXPECT_EQ(a.unschedulable, b.unschedulable);
    EXPECT_EQ(a.pending_at_end, b.pending_at_end);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.placement_attempts, b.placement_attempts);
    EXPECT_EQ(a.allocation_ratio, b.allocation_ratio);
    EXPECT_EQ(a.fragmentation_ratio, b.fragmentation_ratio);
  }
  EXPECT_GE(progress_calls.load(), static_cast<int>(which.size()));  // at least the final 1.0
}

TEST(RunPolicies, ErrorInOneWorkerIsRethrown) {
  Scenario sc = load_scenario(scenario_path("quickstart.yaml"));
  sc.policies[1].sharing.kind = "no-such-mode";  // make_sharing_mode throws in a worker
  EXPECT_THROW(run_policies(sc, all_policies(sc), 4), std::invalid_argument);
}

TEST(ProgressLine, ManyThreadsUpdating) {
  ProgressLine line("test", 8);
  std::vector<std::jthread> threads;
  for (size_t t = 0; t < 8; ++t)
    threads.emplace_back([&line, t] {
      for (int i = 0; i <= 1000; ++i) line.update(t, i / 1000.0);
    });
}

// -q: nothing on stderr, even past the first second after which a progress line appears.
TEST(ProgressLine, QuietPrintsNothing) {
  using namespace std::chrono_literals;
  for (const bool quiet : {false, true}) {
    SCOPED_TRACE(quiet);
    ::testing::internal::CaptureStderr();
    {
      ProgressLine line("test", 1, quiet);
      line.update(0, 0.5);
      std::this_thread::sleep_for(1300ms);
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    if (quiet) {
      EXPECT_EQ(err, "");
    } else {
      EXPECT_NE(err.find("test:  50.0% (0/1 runs done"), std::string::npos) << err;
    }
  }
}

}  // namespace
}  // namespace slicelab
