// scripts/gpu-check (docs/gpu-check.md): the whole run on the fake driver with the CPU stand-in,
// every section of its report present and every figure read; and the report's reading of a raw
// folder whose steps were skipped, stopped at their budget, or left output that cannot be read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reports/gpu_check_report.h"
#include "tests/support/cli_run.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_file;
using testing::run_program;
using testing::shell_quote;

class GpuCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / (std::string("slicelab-") + info->test_suite_name() + "-" +
                                        info->name() + "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  json figure(const fs::path& report, const std::string& name) const {
    const std::string text = read_file(report / (name + ".json"));
    if (text.empty()) return nullptr;
    return json::parse(text);
  }
  fs::path dir_;
};

// Every number a measured figure's rows hold was read (none is null).
void expect_rows_read(const json& f) {
  ASSERT_TRUE(f.contains("rows")) << f.dump(1);
  for (const json& row : f["rows"])
    for (const auto& [key, v] : row.items())
      EXPECT_FALSE(v.is_null()) << f["figure"] << ": " << key << " of " << row.dump();
}

// The run itself: about 40 s on an idle two-core machine (every step's figures on the fakes).
TEST_F(GpuCheck, FakeRunWritesEveryFigureOfTheReport) {
  const fs::path report = dir_ / "report";
  const auto r = run_program(SLICELAB_SOURCE_DIR "/scripts/gpu-check",
                             "--fake --prebuilt " + shell_quote(SLICELAB_BUILD_DIR) + " -o " +
                                 shell_quote(report.string()),
                             dir_, "gpu-check");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // The step list with each step's budget is printed first; the budgets sum to under 8 minutes.
  EXPECT_NE(r.out.find("the steps and their budgets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("70 s  interposer caps 10/90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total              465 s"), std::string::npos) << r.out;
  // Nothing of the raw folder is left beside the report.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find("gpu-check-raw"), std::string::npos) << e.path();
  EXPECT_TRUE(fs::is_regular_file(report / ".slicelab-results"));

  const std::string summary = read_file(report / "summary.md");
  for (const char* heading :
       {"# slicelab gpu-check: Fake GPU", "Made on the fake driver", "## Environment", "## Steps",
        "## Interposer overhead per call", "## Interposer overhead end to end",
        "## Isolation fidelity (interposer)", "## Memory cap", "## Co-location slowdowns",
        "## Calibration", "## Replay: simulated against measured", "## Real-GPU tests", "## MIG",
        "## Skipped and why", "## Updating the committed baselines"})
    EXPECT_NE(summary.find(heading), std::string::npos) << heading << "\n" << summary;
  // The tables' heads, as the issue names them.
  for (const char* head : {"| kernel | bare | interposed | added |",
                           "| kernel | cap | achieved | error | a unit alone |",
                           "| pair | mode | caps | slowdown a | slowdown b |",
                           "| pod | class | simulated s | measured s | error s |"})
    EXPECT_NE(summary.find(head), std::string::npos) << head;

  std::set<std::string> statuses;
  for (const char* name : kGpuCheckFigures) {
    SCOPED_TRACE(name);
    const json f = figure(report, name);
    ASSERT_TRUE(f.is_object()) << name << ".json is missing";
    EXPECT_EQ(f["figure"], name);
    if (std::string(name) == "gpu-tests") {
      // The real-GPU tests ran and skipped, each saying why: no GPU here.
      EXPECT_EQ(f["status"], "skipped") << f.dump(1);
      ASSERT_FALSE(f["rows"].empty()) << f.dump(1);
      for (const json& t : f["rows"]) {
        EXPECT_EQ(t["result"], "skipped") << t.dump();
        EXPECT_NE(t["detail"].get<std::string>().find("no GPU"), std::string::npos) << t.dump();
      }
      continue;
    }
    if (std::string(name) == "overhead-calls" &&
        !fs::exists(SLICELAB_BUILD_DIR "/bench/limiter_overhead")) {
      // A build without Google Benchmark has no limiter_overhead: the step says so.
      EXPECT_EQ(f["status"], "skipped") << f.dump(1);
      EXPECT_NE(f["reason"].get<std::string>().find("limiter_overhead"), std::string::npos);
      continue;
    }
    EXPECT_EQ(f["status"], "measured") << f.dump(1);
    if (f.contains("rows")) expect_rows_read(f);
  }

  const json steps = figure(report, "steps");
  std::set<std::string> names;
  for (const json& s : steps["rows"]) {
    names.insert(s["step"].get<std::string>());
    if (s["step"] == "build") {
      EXPECT_EQ(s["status"], "skipped") << "--prebuilt: nothing is built";
    } else if (s["step"] == "overhead-calls" &&
               !fs::exists(SLICELAB_BUILD_DIR "/bench/limiter_overhead")) {
      EXPECT_EQ(s["status"], "skipped") << s.dump();
    } else {
      EXPECT_EQ(s["status"], "ok") << s.dump();
    }
  }
  EXPECT_EQ(names.size(), 11u) << steps.dump(1);  // every step but the report itself
  EXPECT_LT(steps["budget_s"].get<double>(), 480);

  // The figures the issue asks for, row by row.
  const json calls = figure(report, "overhead-calls");
  if (fs::exists(SLICELAB_BUILD_DIR "/bench/limiter_overhead")) {
    EXPECT_EQ(calls["rows"].size(), 3u) << calls.dump(1);
  }
  std::set<std::string> kernels;
  const json overhead = figure(report, "overhead-kernels");
  for (const json& k : overhead["rows"]) kernels.insert(k["kernel"].get<std::string>());
  EXPECT_TRUE(kernels.count("inference-mix") && kernels.count("fma"));
  std::set<std::pair<std::string, long>> caps;
  const json isolation = figure(report, "isolation");
  for (const json& c : isolation["rows"])
    caps.emplace(c["length"].get<std::string>(), std::lround(c["cap"].get<double>() * 100));
  EXPECT_EQ(caps.size(), 15u);  // 10, 30, 50, 70, 90% for short, medium and long kernels
  const json memory = figure(report, "memory-cap");
  EXPECT_EQ(memory["largest_held_mib"], 1024) << memory.dump(1);
  EXPECT_EQ(memory["smallest_refused_mib"], 1025) << memory.dump(1);
  EXPECT_EQ(memory["over_cap_test"]["passed"], true) << memory.dump(1);
  std::set<std::string> modes;
  const json colocation = figure(report, "colocation");
  for (const json& c : colocation["rows"]) modes.insert(c["mode"].get<std::string>());
  EXPECT_EQ(modes, (std::set<std::string>{"time-slice", "interposer", "mps"}));
  EXPECT_FALSE(figure(report, "calibration")["rows"].empty());
  EXPECT_TRUE(fs::is_regular_file(report / "calibration.yaml"));
  EXPECT_EQ(figure(report, "replay")["rows"].size(), 6u);  // local-smoke's six pods
  EXPECT_FALSE(figure(report, "mig")["rows"].empty());     // the fake GPU's two instances
  EXPECT_TRUE(fs::is_regular_file(report / "logs" / "colocation.log"));

  // The report command wants an existing raw folder: a missing one is bad input, and a folder
  // that is not a raw folder is refused without touching the report.
  const auto missing = run_program(SLICELAB_BINARY,
                                   "kernels report " + shell_quote((dir_ / "nope").string()) +
                                       " -o " + shell_quote(report.string()),
                                   dir_, "missing");
  EXPECT_EQ(missing.status, 1) << missing.err;
  EXPECT_NE(missing.err.find("nope: no such folder"), std::string::npos) << missing.err;
  const auto not_raw = run_program(SLICELAB_BINARY,
                                   "kernels report " + shell_quote((report / "logs").string()) +
                                       " -o " + shell_quote(report.string()),
                                   dir_, "not-raw");
  EXPECT_EQ(not_raw.status, 1) << not_raw.err;
  EXPECT_NE(not_raw.err.find("no steps.tsv"), std::string::npos) << not_raw.err;
  EXPECT_EQ(read_file(report / "summary.md"), summary);
}

// The processes whose command line mentions `text`.
std::vector<std::string> processes_mentioning(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file(e.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(text) != std::string::npos) out.push_back(pid + ": " + cmdline);
  }
  return out;
}

// A step past its budget is stopped with every process it started, reported as timed out, and
// the next steps run.
TEST_F(GpuCheck, AStepPastItsBudgetIsStoppedAndTheRestContinue) {
  const fs::path report = dir_ / "report";
  const auto r =
      run_program(SLICELAB_SOURCE_DIR "/scripts/gpu-check",
                  "--fake --prebuilt " + shell_quote(SLICELAB_BUILD_DIR) +
                      " --only environment,isolation,memory-cap -o " + shell_quote(report.string()),
                  dir_, "gpu-check", "SLICELAB_GPU_CHECK_BUDGETS=isolation=3");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("isolation         timeout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory-cap        ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("colocation        skipped"), std::string::npos) << r.out;
  const json steps = figure(report, "steps");
  ASSERT_TRUE(steps.is_object()) << r.out << r.err;
  for (const json& s : steps["rows"]) {
    if (s["step"] != "isolation") continue;
    EXPECT_EQ(s["status"], "timeout");
    EXPECT_LT(s["seconds"].get<double>(), 8) << "stopped at 3 s, killed 2 s later at most";
    EXPECT_NE(s["detail"].get<std::string>().find("stopped at its budget of 3 s"),
              std::string::npos);
  }
  EXPECT_EQ(figure(report, "isolation")["status"], "timed out");
  EXPECT_EQ(figure(report, "memory-cap")["status"], "measured");
  EXPECT_EQ(figure(report, "colocation")["reason"],
            "step colocation: not in --only "
            "environment,isolation,memory-cap");
  EXPECT_EQ(processes_mentioning(dir_.string()), std::vector<std::string>{});
}

TEST_F(GpuCheck, TheReportFolderIsCheckedBeforeAnythingRuns) {
  const fs::path notes = dir_ / "notes";
  fs::create_directories(notes);
  std::ofstream(notes / "mine.txt") << "not slicelab's\n";
  const auto r = run_program(
      SLICELAB_SOURCE_DIR "/scripts/gpu-check",
      "--fake --prebuilt " + shell_quote(SLICELAB_BUILD_DIR) + " -o " + shell_quote(notes.string()),
      dir_, "gpu-check");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("holds files slicelab did not write"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(notes / "mine.txt"), "not slicelab's\n");
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find("gpu-check-raw"), std::string::npos) << e.path();
}

TEST_F(GpuCheck, ListPrintsTheStepsAndBudgetsUnderEightMinutes) {
  const auto r = run_program(SLICELAB_SOURCE_DIR "/scripts/gpu-check", "--list", dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  int total = 0, lines = 0;
  std::istringstream in(r.out);
  for (std::string name, line; std::getline(in, line); ++lines) {
    std::istringstream w(line);
    int seconds = 0;
    w >> name >> seconds;
    if (name != "total") total += seconds;
  }
  EXPECT_EQ(lines, 13) << r.out;  // twelve steps and the total
  EXPECT_LT(total, 480) << r.out;
  EXPECT_NE(r.out.find("total              465 s"), std::string::npos) << r.out;
}

// A raw folder written by hand: one step skipped, one stopped at its budget, one finished
// without the output it should have left, one whose output is not JSON.
TEST_F(GpuCheck, ReportNamesWhatWasNotMeasuredAndWhy) {
  const fs::path raw = dir_ / "raw";
  fs::create_directories(raw / "logs");
  std::ofstream(raw / "steps.tsv")
      << "# step\tbudget_s\tstatus\tseconds\tdetail\n"
      << "environment\t10\tok\t0.1\t\n"
      << "overhead-calls\t20\tskipped\t0.0\tbench/limiter_overhead is missing (x)\n"
      << "overhead-kernels\t45\ttimeout\t45.0\tstopped at its budget of 45 s\n"
      << "isolation\t70\tok\t10\t\n"
      << "colocation\t65\tok\t10\t\n";
  std::ofstream(raw / "environment.txt")
      << "mode=gpu\ngpu=Some GPU\ndriver=1.2\ncuda_driver=13.0\ncuda_toolkit=13.0.1\n";
  std::ofstream(raw / "isolation-short-1.json") << "{not json";
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  const GpuCheckReport r = write_gpu_check_report(raw, out);
  const auto status = [&](const std::string& name) {
    return figure(out, name)["status"].get<std::string>();
  };
  EXPECT_EQ(status("environment"), "measured");
  EXPECT_EQ(status("overhead-calls"), "skipped");
  EXPECT_EQ(figure(out, "overhead-calls")["reason"],
            "step overhead-calls: bench/limiter_overhead is missing (x)");
  EXPECT_EQ(status("overhead-kernels"), "timed out");
  EXPECT_EQ(status("isolation"), "unparsed");
  EXPECT_NE(figure(out, "isolation")["reason"].get<std::string>().find("is not JSON"),
            std::string::npos);
  EXPECT_EQ(status("colocation"), "unparsed");  // finished, but left no colocation.csv
  EXPECT_EQ(status("replay"), "missing");       // never ran
  EXPECT_EQ(r.unparsed.size(), 2u);
  EXPECT_EQ(r.measured, 2u);  // environment and steps
  const std::string summary = read_file(out / "summary.md");
  EXPECT_NE(summary.find("- overhead-calls: skipped: step overhead-calls: bench/limiter_overhead "
                         "is missing (x)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("**timed out**: step overhead-kernels: stopped at its budget of 45 s"),
            std::string::npos)
      << summary;
}

TEST_F(GpuCheck, AFolderWithoutStepsIsNotARawFolder) {
  EXPECT_THROW(write_gpu_check_report(dir_, dir_), std::exception);
}

}  // namespace
}  // namespace slicelab
