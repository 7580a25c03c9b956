// Pins down the streamed result files: pods.csv written row by row into the results folder holds
// the rows a hand-worked run gives, equal to the string form; a write that fails part way (a
// full disk) is an error, not a short file; reasons are held once per text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/atomic_folder.h"
#include "reports/results_writer.h"
#include "sim/metrics/reason_table.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

// One A100 and four pods: a runs first; b (whole GPU) waits for it; c asks two GPUs of a one-GPU
// node and is never placed; d (CPU only) waits behind b in the strict FIFO queue.
const char* const kFourPods = R"(name: streamed
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: a, arrival: 0, duration: 100, gpu_count: 1}
    - {name: b, arrival: 10, duration: 50, gpu_count: 1}
    - {name: c, arrival: 20, duration: 30, gpu_count: 2}
    - {name: d, arrival: 30, duration: 40, cpu_milli: 2000}
engine: {sample_interval: 50}
policies:
  - {name: ff, placement: first-fit}
  - {name: bf, placement: best-fit}
)";

std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

class StreamedResults : public testing::TempFilesTest {};

TEST_F(StreamedResults, PodsCsvInTheFolderHoldsTheHandWorkedRows) {
  const Scenario sc = load_scenario(write("four.yaml", kFourPods));
  const std::vector<size_t> both = {0, 1};
  const std::vector<RunResult> runs = run_policies(sc, both, 2);
  const fs::path out = dir_ / "out";
  write_results(out.string(), sc, runs);
  const std::string file = testing::read_file(out / "pods.csv");
  EXPECT_TRUE(file == pods_csv(sc, runs));
  const std::vector<std::string> rows = text_lines(file);
  ASSERT_EQ(rows.size(), 9U);  // header + 4 pods x 2 policies, in pod order per policy
  // a: 0..100. b: waits 90 s for the GPU, jct 140 = 2.8 x its 50 s. d: CPU only, but strict
  // FIFO keeps it behind b until 100: queue 70, jct 110 = 2.75 x 40 s, no GPU.
  for (const std::string policy : {"ff", "bf"}) {
    const size_t at = policy == "ff" ? 1 : 5;
    EXPECT_EQ(rows[at], policy + ",a,default,completed,0,0,100,0,100,1,0,0,,");
    EXPECT_EQ(rows[at + 1], policy + ",b,default,completed,10,100,150,90,140,2.8,0,0,,");
    const std::string c = policy + ",c,default,unschedulable,20,,,,,,,,";
    EXPECT_EQ(rows[at + 2].rfind(c, 0), 0U) << rows[at + 2];
    EXPECT_NE(rows[at + 2].find("no node could ever hold it"), std::string::npos) << rows[at + 2];
    EXPECT_EQ(rows[at + 3], policy + ",d,default,completed,30,100,140,70,110,2.75,0,,,");
  }
  EXPECT_TRUE(testing::read_file(out / "timeseries.csv") == timeseries_csv(runs));
}

// 20,000 pods per policy: three blocks of rows each, so blocks formatted side by side must come
// out in order, across the policies too.
const char* const kManyPods = R"(name: many
cluster:
  node_groups:
    - {name: n, count: 20, gpu_model: A100-80GB, gpus_per_node: 8, cpu_milli: 128000, memory_mib: 1Ti}
workload:
  generator:
    pods: 20000
    arrivals_per_hour: 400
    seed: 3
    shapes:
      - {name: frac, weight: 3, gpu_count: 1, gpu_milli: 300, gpu_memory_mib: 10000,
         duration: {distribution: lognormal, median: 1800, sigma: 0.8, min: 30}}
      - {name: big, weight: 1, gpu_count: 4, gpu_milli: 1000, gpu_memory_mib: 60000,
         duration: {distribution: lognormal, median: 3600, sigma: 0.8, min: 30}}
policies:
  - {name: ff, placement: first-fit}
  - {name: bf, placement: best-fit}
)";

TEST_F(StreamedResults, RowsFormattedSideBySideAreTheSameBytesAtEveryWidth) {
  const Scenario sc = load_scenario(write("many.yaml", kManyPods));
  const std::vector<size_t> both = {0, 1};
  const std::vector<RunResult> runs = run_policies(sc, both, 2);
  std::ostringstream one;
  write_pods_csv(one, sc, runs, 1);
  const std::string want = one.str();
  EXPECT_EQ(text_lines(want).size(), 40001U);
  for (const int width : {2, 3, 8}) {
    std::ostringstream side_by_side;
    write_pods_csv(side_by_side, sc, runs, width);
    EXPECT_TRUE(side_by_side.str() == want) << "width " << width;
  }
}

TEST_F(StreamedResults, AFileThatCannotBeWrittenToTheEndIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  // More than any stream buffer: the writes fail while rows are still coming.
  const auto megabyte = [](std::ostream& out) {
    const std::string row(1023, 'x');
    for (int i = 0; i < 1024; ++i) out << row << '\n';
  };
  EXPECT_THROW(write_streamed_file("/dev/full", megabyte), std::runtime_error);
  EXPECT_THROW(write_streamed_file(dir_ / "no-such-folder" / "pods.csv", megabyte),
               std::runtime_error);
}

TEST(ReasonTable, EqualTextsShareOneIndexAndEmptyIsNone) {
  ReasonTable t;
  EXPECT_EQ(t.add(""), ReasonTable::kNone);
  const uint32_t oom = t.add("out of memory");
  const uint32_t late = t.add("arrives after the run ended at 50s");
  EXPECT_NE(oom, ReasonTable::kNone);
  EXPECT_NE(oom, late);
  EXPECT_EQ(t.add(std::string("out of ") + "memory"), oom);
  EXPECT_EQ(t.size(), 3U);  // "", and the two texts once each
  const ReasonTable copy = t;
  EXPECT_EQ(copy[oom], "out of memory");
  EXPECT_EQ(copy[late], "arrives after the run ended at 50s");
  EXPECT_EQ(copy[ReasonTable::kNone], "");
}

}  // namespace
}  // namespace slicelab
