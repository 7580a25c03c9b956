// The input limits through the slicelab command: each malformed or hostile input ends in one
// located message and exit code 1, quickly (every run is under `timeout`, so a hang or a crash
// shows as its own exit code instead of stopping the suite).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::shell_quote;

const std::string kMalformedScenarios = std::string(SLICELAB_SOURCE_DIR) + "/tests/malformed";

class InputLimits : public testing::TempFilesTest {
 protected:
  // `slicelab args` under a 20 s timeout: 124 means it hung, 134/139 that it crashed.
  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(SLICELAB_BINARY, args, dir_, "run", "timeout 20");
  }
  // A results folder whose summary.json is `json`.
  std::string results_with(const std::string& name, const std::string& text) {
    fs::create_directories(dir_ / name);
    std::ofstream(dir_ / name / "summary.json", std::ios::binary) << text;
    // slicelab's marker, as its own run leaves it: `report` adds only to such a folder.
    std::ofstream(dir_ / name / ".slicelab-results", std::ios::binary)
        << "slicelab results folder\nsummary.json\n";
    return (dir_ / name).string();
  }
};

std::string nested_json(int levels) {
  return "{\"policies\": " + std::string(static_cast<size_t>(levels), '[') +
         std::string(static_cast<size_t>(levels), ']') + "}";
}

TEST_F(InputLimits, BillionLaughsIsRefusedQuickly) {
  const std::string file = kMalformedScenarios + "/billion_laughs.yaml";
  const testing::CliRun r = slicelab("validate " + shell_quote(file));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + file +
                       ":4:14: description: YAML anchors ('&a') are not supported; write the "
                       "value out where it is needed\n");
}

TEST_F(InputLimits, FifoAndDeviceAreRefusedWithoutHanging) {
  const std::string fifo = (dir_ / "scenario.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  testing::CliRun r = slicelab("validate " + shell_quote(fifo));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + fifo + ": cannot read: not a regular file (a FIFO)\n");
  r = slicelab("validate /dev/zero");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: /dev/zero: cannot read: not a regular file (a character device)\n");
}

TEST_F(InputLimits, SyntaxRefusalsAtValidate) {
  for (const auto& [file, expected] : std::initializer_list<std::pair<std::string, std::string>>{
           {"second_document.yaml",
            ":11:1: top level: a second YAML document ('---' after the first); a file holds one "
            "document"},
           {"invalid_utf8_name.yaml",
            ":10:16: invalid UTF-8 (byte 0xFF); the file must be UTF-8 "
            "text"},
           {"sharing_without_mode.yaml",
            ":11:14: policies[0].sharing: missing required key 'mode'"},
           {"duplicate_gpu_model.yaml", ":5:3: gpu_models: duplicate key 'G2' (also on line 4)"}}) {
    SCOPED_TRACE(file);
    const std::string path = kMalformedScenarios + "/" + file;
    const testing::CliRun r = slicelab("validate " + shell_quote(path));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "error: " + path + expected + "\n");
    EXPECT_EQ(r.out, "");
  }
}

// Before: a stack overflow (SIGSEGV) in both.
TEST_F(InputLimits, DeepJsonIsRefusedByReportAndMerge) {
  const std::string results = results_with("results", nested_json(50000));
  testing::CliRun r = slicelab("report " + shell_quote(results));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + results + "/summary.json:1:77: JSON nested deeper than 64 levels\n");

  // A manifest of the right kind, given twice: comparing the two recursed once per level.
  const fs::path shard = dir_ / "shard";
  fs::create_directories(shard);
  std::ofstream(shard / "sweep.json", std::ios::binary)
      << R"({"kind": "sweep", "rows": 0, "points": 0, "x": )" + nested_json(50000) + "}";
  std::ofstream(shard / "sweep.csv", std::ios::binary) << "";
  const std::string arg = shell_quote(shard.string());
  r = slicelab("merge " + arg + " " + arg + " -o " + shell_quote((dir_ / "merged").string()));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + (shard / "sweep.json").string() +
                       ":1:123: JSON nested deeper than 64 levels\n");
  EXPECT_FALSE(fs::exists(dir_ / "merged"));
}

TEST_F(InputLimits, BadJsonNamesTheFile) {
  const std::string results = results_with("results", "{\"policies\": [1,\n");
  const testing::CliRun r = slicelab("report " + shell_quote(results));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + results +
                       "/summary.json:2:1: not valid JSON: syntax error while parsing value - "
                       "unexpected end of input; expected '[', '{', or a literal\n");
  // A manifest with a count of the wrong type: before, nlohmann's type_error with no file.
  const fs::path shard = dir_ / "shard";
  fs::create_directories(shard);
  std::ofstream(shard / "sweep.json", std::ios::binary)
      << R"({"kind": "sweep", "rows": "two", "points": 2})";
  const testing::CliRun m = slicelab("merge " + shell_quote(shard.string()) + " -o " +
                                     shell_quote((dir_ / "merged").string()));
  EXPECT_EQ(m.status, 1);
  EXPECT_EQ(m.err, "error: " + (shard / "sweep.json").string() +
                       ":1:27: rows: expected a whole number from 0 to 1000000, found \"two\"\n");
}

// Before: "error: std::bad_alloc", or "terminate called after throwing an instance of
// 'std::bad_alloc'" (exit 134) when a destructor found no room while the error unwound. A report
// of 100,000 policies (about 700 MB) under a 300 MB address-space limit.
TEST_F(InputLimits, OutOfMemoryIsSaidInWords) {
#ifdef SLICELAB_SANITIZED
  GTEST_SKIP() << "the sanitizers reserve terabytes of address space: ulimit -v cannot apply";
#endif
  std::string text = R"({"format": "slicelab.summary/1", "policies": [)";
  for (int i = 0; i < 100'000; ++i)
    text += (i == 0 ? R"({"name": "p)" : R"(, {"name": "p)") + std::to_string(i) +
            R"(", "pods": {"total": 10, "completed": 10}, "allocation_ratio": {"time_weighted": )"
            R"(0.5}})";
  text += "]}";
  const std::string results = results_with("big", text);
  const testing::CliRun r =
      testing::run_program(SLICELAB_BINARY, "report -q " + shell_quote(results), dir_, "oom",
                           "ulimit -v 300000 && timeout 60");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "error: out of memory while running `slicelab report`: the input asks for more memory "
            "than this process may use (docs/scenario-format.md#limits lists the limits); give it "
            "a smaller input, fewer parallel jobs (-j 1), or more memory (ulimit -v, the "
            "container's limit)\n");
  EXPECT_FALSE(fs::exists(fs::path(results) / "report.md"));
}

}  // namespace
}  // namespace slicelab
