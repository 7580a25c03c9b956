// The slicelab binary never destroys what it did not write: refused output folders and names
// leave everything in place, marked folders are replaced, --force, and the sweep of leftovers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/cli_run.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::shell_quote;

const std::string kSource = SLICELAB_SOURCE_DIR;
const std::string kBinary = SLICELAB_BINARY;

// Small enough to run in a blink; its name is `name`.
std::string tiny_scenario(const std::string& name) {
  return "name: " + name + R"(
cluster:
  node_groups:
    - {name: a100, count: 1, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  pods:
    - {name: train, duration: 1h, gpu_count: 1}
policies:
  - placement: best-fit
)";
}

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-out-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    tmp_ = pattern;
    work_ = tmp_ / "work";
    fs::create_directories(work_);
    std::ofstream(work_ / "sentinel.txt") << "keep me";
    scenario_ = write("tiny.yaml", tiny_scenario("tiny"));
  }
  void TearDown() override { fs::remove_all(tmp_); }

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(tmp_ / name, std::ios::binary) << text;
    return (tmp_ / name).string();
  }
  // Runs slicelab with `args` in the folder work/ (its output files go to the temp folder).
  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(kBinary, args, tmp_, "std-" + std::to_string(calls_++), "", work_);
  }
  // Every path under `dir`, relative, sorted.
  static std::vector<std::string> tree(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      out.push_back(e.path().lexically_relative(dir).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path tmp_, work_;
  std::string scenario_;
  int calls_ = 0;
};

TEST_F(OutputSafety, OutDotIsRefusedAndNothingIsDeleted) {
  // Only folders inside this test's own: were the rules broken, nothing else could be lost.
  // ("/", $HOME and others are checked without writing in unit/output_guard_test.cc.)
  for (const std::string& out :
       std::vector<std::string>{".", "./", "..", work_.string(), tmp_.string()})
    for (const std::string force : {"", " --force"}) {
      SCOPED_TRACE(out + force);
      const testing::CliRun r = slicelab("compare -q" + force + " " + shell_quote(scenario_) +
                                         " --out " + shell_quote(out));
      EXPECT_EQ(r.status, 1);
      EXPECT_EQ(r.err.rfind("error: output folder '" + out + "' ", 0), 0U) << r.err;
      EXPECT_EQ(tree(work_), std::vector<std::string>{"sentinel.txt"});
      EXPECT_EQ(read_file(work_ / "sentinel.txt"), "keep me");
    }
}

// results/.. is the working folder itself: the name is refused when the scenario is loaded.
TEST_F(OutputSafety, NameDotDotIsRefusedAndNothingIsDeleted) {
  const std::string file = kSource + "/tests/malformed/name_dot_dot.yaml";
  for (const std::string cmd : {"compare", "run", "plan", "validate"}) {
    SCOPED_TRACE(cmd);
    const testing::CliRun r = slicelab(cmd + " " + shell_quote(file));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.rfind("error: " + file + ":3:7: name: '..' is not a plain file name", 0), 0U)
        << r.err;
    EXPECT_EQ(tree(work_), std::vector<std::string>{"sentinel.txt"});
  }
  // An absolute path as the name: refused too, and the folder it names is untouched.
  const std::string other = (tmp_ / "other").string();
  fs::create_directories(other);
  std::ofstream(fs::path(other) / "theirs.txt") << "x";
  const testing::CliRun r =
      slicelab("compare -q " + shell_quote(write("abs.yaml", tiny_scenario(other))));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("name: contains '/'"), std::string::npos) << r.err;
  EXPECT_EQ(tree(other), std::vector<std::string>{"theirs.txt"});
}

TEST_F(OutputSafety, NonEmptyFolderSlicelabDidNotWriteIsRefusedEvenWithForce) {
  for (const std::string force : {"", " --force"}) {
    // The working folder, spelled another way.
    const testing::CliRun s =
        slicelab("compare -q" + force + " " + shell_quote(scenario_) + " --out " +
                 shell_quote(tmp_.string() + "/../" + tmp_.filename().string() + "/work"));
    EXPECT_EQ(s.status, 1);
    EXPECT_NE(s.err.find("the working folder"), std::string::npos) << s.err;
  }
  fs::create_directories(tmp_ / "theirs" / "sub");
  std::ofstream(tmp_ / "theirs" / "sub" / "data.csv") << "1,2";
  for (const std::string force : {"", " --force"}) {
    const testing::CliRun r =
        slicelab("compare -q" + force + " " + shell_quote(scenario_) + " --out ../theirs");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err,
              "error: output folder '../theirs' is not empty and was not written by slicelab "
              "(it has no .slicelab-results file): slicelab replaces only empty folders and its "
              "own results folders, even with --force; give a new folder name, or move what is "
              "in it elsewhere\n");
    EXPECT_EQ(tree(tmp_ / "theirs"), (std::vector<std::string>{"sub", "sub/data.csv"}));
  }
}

TEST_F(OutputSafety, FileOrLinkAsOutIsRefused) {
  const testing::CliRun r =
      slicelab("compare -q " + shell_quote(scenario_) + " --out sentinel.txt");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("exists and is not a folder"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(work_ / "sentinel.txt"), "keep me");
}

TEST_F(OutputSafety, FolderUnderAFileIsRefusedWithItsReason) {
  const testing::CliRun r =
      slicelab("compare -q " + shell_quote(scenario_) + " --out sentinel.txt/r");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(
      r.err.find("cannot be created: '" + (work_ / "sentinel.txt").string() + "' is not a folder"),
      std::string::npos)
      << r.err;
}

// Sweeps and merges write folders by the same rules; a sweep's name is checked as a scenario's.
TEST_F(OutputSafety, SweepAndMergeFollowTheSameRules) {
  const std::string sweep =
      write("s.yaml", "name: ..\nscenario: tiny.yaml\npolicies: [best-fit]\n");
  testing::CliRun r = slicelab("sweep -q " + shell_quote(sweep));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("error: " + sweep + ":1:7: name: '..' is not a plain file name", 0), 0U)
      << r.err;
  const std::string good = write("g.yaml", "scenario: tiny.yaml\npolicies: [best-fit]\n");
  r = slicelab("sweep -q " + shell_quote(good) + " --out .");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("output folder '.'"), std::string::npos) << r.err;
  ASSERT_EQ(slicelab("sweep -q " + shell_quote(good) + " --out shard").status, 0);
  r = slicelab("merge shard -o .");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("output folder '.'"), std::string::npos) << r.err;
  ASSERT_EQ(slicelab("merge shard -o merged").status, 0);
  EXPECT_TRUE(fs::is_regular_file(work_ / "merged" / ".slicelab-results"));
  EXPECT_TRUE(fs::is_regular_file(work_ / "sentinel.txt"));
}

TEST_F(OutputSafety, MarkedFolderIsReplacedAddedFilesNeedForce) {
  ASSERT_EQ(slicelab("compare -q " + shell_quote(scenario_) + " --out r").status, 0);
  EXPECT_EQ(read_file(work_ / "r" / ".slicelab-results").rfind("slicelab results folder\n", 0), 0U);
  const std::vector<std::string> files = tree(work_ / "r");
  // Again (the default folder too): a folder slicelab wrote is replaced.
  ASSERT_EQ(slicelab("compare -q --seed 7 " + shell_quote(scenario_) + " --out r").status, 0);
  EXPECT_NE(read_file(work_ / "r" / "summary.json").find("\"seed\": 7"), std::string::npos);
  ASSERT_EQ(slicelab("compare -q " + shell_quote(scenario_)).status, 0);
  ASSERT_EQ(slicelab("compare -q " + shell_quote(scenario_)).status, 0);
  EXPECT_TRUE(fs::is_regular_file(work_ / "results" / "tiny" / ".slicelab-results"));
  // A report added by `slicelab report` is slicelab's too.
  slicelab("report -q r");  // report.md at least (report.html needs libjs-vega)
  ASSERT_EQ(slicelab("compare -q " + shell_quote(scenario_) + " --out r").status, 0);

  std::ofstream(work_ / "r" / "my-notes.md") << "mine";
  testing::CliRun refused = slicelab("compare -q " + shell_quote(scenario_) + " --out r");
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.err.find("holds 1 path(s) slicelab did not write there (my-notes.md); move "
                             "them elsewhere, or give --force"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(read_file(work_ / "r" / "my-notes.md"), "mine");
  ASSERT_EQ(slicelab("compare -q --force " + shell_quote(scenario_) + " --out r").status, 0);
  EXPECT_EQ(tree(work_ / "r"), files);
}

TEST_F(OutputSafety, ReportWritesOnlyIntoMarkedFolders) {
  fs::create_directories(work_ / "plain");
  std::ofstream(work_ / "plain" / "summary.json") << "{}";
  const testing::CliRun r = slicelab("report plain");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not a results folder slicelab wrote"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(work_ / "plain" / "report.md"));
  // Nor over a report.md of someone else's in a marked folder.
  ASSERT_EQ(slicelab("compare -q " + shell_quote(scenario_) + " --out r").status, 0);
  std::ofstream(work_ / "r" / "report.md") << "my own report";
  EXPECT_EQ(slicelab("report r").status, 1);
  EXPECT_EQ(read_file(work_ / "r" / "report.md"), "my own report");
}

// kill -9 during the final write leaves <out>.slicelab-tmp-<pid>: the next run removes it once
// its process is gone, but never a lookalike without slicelab's marker.
TEST_F(OutputSafety, StaleTemporaryFolderOfADeadRunIsSwept) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  const fs::path stale = work_ / ("r.slicelab-tmp-" + std::to_string(child));
  fs::create_directories(stale);
  std::ofstream(stale / ".slicelab-results") << "slicelab results folder\n";
  std::ofstream(stale / "pods.csv") << "partial";
  const fs::path lookalike = work_ / "r.slicelab-tmp-999999999";
  fs::create_directories(lookalike);
  std::ofstream(lookalike / "mine") << "x";
  ASSERT_EQ(slicelab("compare -q " + shell_quote(scenario_) + " --out r").status, 0);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(lookalike / "mine"));
  EXPECT_TRUE(fs::exists(work_ / "r" / "summary.json"));
}

TEST_F(OutputSafety, ImportNeverWritesOverItsInput) {
  const std::string csv = write("trace.csv", "job,dur\na,60\n");
  const testing::CliRun r = slicelab("import csv --file " + shell_quote(csv) +
                                     " --map name=job,duration=dur -o " + shell_quote(csv));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is the input file"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(csv), "job,dur\na,60\n");
}

// -o of import and calibrate: a file slicelab did not write is never replaced, whatever its
// name (before: replaced, as naming it was taken to ask for); one it wrote is. The refusal comes
// before the input is read.
TEST_F(OutputSafety, ImportAndCalibrateReplaceOnlyTheirOwnFiles) {
  const std::string csv = write("trace.csv", "job,dur\na,60\n");
  const std::string import_args =
      "import csv --file " + shell_quote(csv) + " --map name=job,duration=dur -o ";
  const std::string foreign = write("notes.yaml", "my: notes\n");
  testing::CliRun r = slicelab(import_args + shell_quote(foreign));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: output file '" + foreign +
                       "' exists and was not written by slicelab (its first line is not "
                       "'# Written by slicelab …'): slicelab replaces only files it wrote; give a "
                       "new name, or move it elsewhere\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(foreign), "my: notes\n");

  // A file slicelab wrote (its first line says so) is replaced; so is an empty one.
  const std::string own = (tmp_ / "trace.yaml").string();
  ASSERT_EQ(slicelab(import_args + shell_quote(own)).status, 0);
  EXPECT_TRUE(read_file(own).starts_with("# Written by slicelab import: a trace file"))
      << read_file(own);
  ASSERT_EQ(slicelab(import_args + shell_quote(own)).status, 0);
  const std::string empty = write("empty.yaml", "");
  ASSERT_EQ(slicelab(import_args + shell_quote(empty)).status, 0);
  EXPECT_EQ(read_file(empty), read_file(own));
  // The trace it wrote reads back.
  const std::string scenario = write("with-trace.yaml", R"(name: t
cluster:
  node_groups:
    - {name: a100, count: 1, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  trace: trace.yaml
policies:
  - placement: best-fit
)");
  EXPECT_EQ(slicelab("validate " + shell_quote(scenario)).status, 0);

  // calibrate -o: the same rule; a calibration file of an earlier version is slicelab's.
  const std::string measurements = kSource + "/calibration/example-colocation.csv";
  r = slicelab("calibrate " + shell_quote(measurements) + " -o " + shell_quote(foreign));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("exists and was not written by slicelab"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(foreign), "my: notes\n");
  const std::string old =
      write("old.yaml", "# Written by `slicelab calibrate m.csv`: fit.\nx: 1\n");
  r = slicelab("calibrate " + shell_quote(measurements) + " -o " + shell_quote(old));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(read_file(old).starts_with("# Written by slicelab calibrate ")) << read_file(old);
  r = slicelab("calibrate " + shell_quote(measurements) + " -o " + shell_quote(old));
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
}  // namespace slicelab
