// Pins down the conventions every subcommand shares (README "Exit codes"): an unknown command is
// a usage error (2) even with --help; `slicelab help [COMMAND]`; a missing input file or folder
// is bad input (1) naming the path; -q never silences the --format json document; and every
// command that writes results offers --format json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_run.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::shell_quote;

const std::string kSource = SLICELAB_SOURCE_DIR;
const std::string kBinary = SLICELAB_BINARY;
const std::string kQuickstart = shell_quote(kSource + "/scenarios/quickstart.yaml");
const std::string kSweep = shell_quote(kSource + "/scenarios/sweeps/example-sweep.yaml");

class CliConventions : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-conventions-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    tmp_ = pattern;
  }
  void TearDown() override { fs::remove_all(tmp_); }

  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(kBinary, args, tmp_, "std-" + std::to_string(calls_++), "", tmp_);
  }
  std::string path(const std::string& name) const { return (tmp_ / name).string(); }

  // The document `args --format json` prints, which -q must leave as it is; null if not JSON.
  json quiet_document(const std::string& args) {
    const testing::CliRun loud = slicelab(args + " --format json");
    const testing::CliRun quiet = slicelab(args + " --format json -q");
    EXPECT_EQ(loud.status, 0) << loud.err;
    EXPECT_EQ(quiet.status, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
    EXPECT_NE(quiet.out, "");
    EXPECT_EQ(quiet.out, loud.out);
    return json::parse(quiet.out, nullptr, /*allow_exceptions=*/false);
  }

  fs::path tmp_;
  int calls_ = 0;
};

TEST_F(CliConventions, UnknownCommandIsAUsageErrorEvenWithHelp) {
  // CLI11 alone reads `simulate --help` as a stray word and the main help, exiting 0.
  for (const std::string& args : std::vector<std::string>{"simulate", "simulate --help",
                                                          "simulate -h", "simulate " + kQuickstart}) {
    SCOPED_TRACE(args);
    const testing::CliRun r = slicelab(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("error: unknown command 'simulate'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("compare"), std::string::npos) << "the commands are listed: " << r.err;
  }
  // The same below a command that holds commands.
  for (const std::string args : {"import nosuch", "import nosuch --help", "kernels nosuch -h"}) {
    SCOPED_TRACE(args);
    const testing::CliRun r = slicelab(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("unknown command 'nosuch'"), std::string::npos) << r.err;
  }
  // A known command's --help still prints its help.
  const testing::CliRun ok = slicelab("compare --help");
  EXPECT_EQ(ok.status, 0);
  EXPECT_NE(ok.out.find("--jobs"), std::string::npos) << ok.out;
}

TEST_F(CliConventions, HelpCommandPrintsTheSameHelpAsDashDashHelp) {
  const testing::CliRun main_help = slicelab("--help");
  const testing::CliRun help = slicelab("help");
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out, main_help.out);
  EXPECT_NE(help.out.find("compare"), std::string::npos);
  for (const std::string command : {"compare", "import", "import openb", "kernels list"}) {
    SCOPED_TRACE(command);
    const testing::CliRun by_flag = slicelab(command + " --help");
    const testing::CliRun by_help = slicelab("help " + command);
    EXPECT_EQ(by_help.status, 0);
    EXPECT_EQ(by_help.err, "");
    EXPECT_EQ(by_help.out, by_flag.out);
    EXPECT_NE(by_help.out, main_help.out);
  }
  for (const std::string args : {"help nosuch", "help compare nosuch", "help import nosuch"}) {
    SCOPED_TRACE(args);
    const testing::CliRun r = slicelab(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("unknown command"), std::string::npos) << r.err;
  }
}

TEST_F(CliConventions, MissingInputIsBadInputNamingThePath) {
  const std::string file = path("no-such-input.yaml");
  const std::string folder = path("no-such-folder");
  const std::string f = shell_quote(file);
  const std::string d = shell_quote(folder);
  const std::string out = shell_quote(path("out"));
  struct Case {
    std::string args, missing;
  };
  for (const Case& c : std::vector<Case>{
           {"validate " + f, file},
           {"run " + f, file},
           {"compare " + f, file},
           {"compare " + kQuickstart + " --measured " + d + " --out " + out, folder},
           {"plan " + f, file},
           {"sweep " + f, file},
           {"merge " + d + " -o " + out, folder},
           {"report " + d, folder},
           {"diff " + d + " " + d, folder},
           {"calibrate " + f + " -o " + out, file},
           {"replay " + f, file},
           {"import openb --pods " + f + " -o " + out, file},
           {"import csv --file " + f + " --map name=a -o " + out, file},
           {"import kubernetes --nodes " + f + " --out " + out, file},
           {"export dra --scenario " + f + " -o " + out, file},
       }) {
    SCOPED_TRACE(c.args);
    const testing::CliRun r = slicelab(c.args);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("error: " + c.missing + ": "), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp_ / "out"));
  EXPECT_FALSE(fs::exists(tmp_ / "results"));

  // A folder where a file is expected, and a file where a folder is.
  const testing::CliRun folder_as_file = slicelab("validate " + shell_quote(tmp_.string()));
  EXPECT_EQ(folder_as_file.status, 1);
  EXPECT_EQ(folder_as_file.err, "error: " + tmp_.string() + ": cannot open file: it is a folder\n");
  const testing::CliRun file_as_folder = slicelab("report " + kQuickstart);
  EXPECT_EQ(file_as_folder.status, 1);
  EXPECT_EQ(file_as_folder.err, "error: " + kSource + "/scenarios/quickstart.yaml: not a folder\n");

  // --help still wins over a missing input, as over any other argument.
  const testing::CliRun help = slicelab("compare " + f + " --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out, slicelab("compare --help").out);
}

TEST_F(CliConventions, QuietNeverSilencesTheJsonDocument) {
  const json compare = quiet_document("compare " + kQuickstart + " --out a");
  EXPECT_EQ(compare["scenario"], "quickstart");
  const json run = quiet_document("run " + kQuickstart + " --seed 2 --out r");
  EXPECT_EQ(run["scenario"], "quickstart");
  ASSERT_EQ(slicelab("compare " + kQuickstart + " --seed 2 --out b -q").status, 0);
  EXPECT_TRUE(quiet_document("diff a b").is_object());
  const json plan =
      quiet_document("plan " + shell_quote(kSource + "/scenarios/capacity-plan.yaml") + " --out p");
  EXPECT_EQ(plan["kind"], "plan");
  const json sweep = quiet_document("sweep " + kSweep + " --out s");
  EXPECT_EQ(sweep["kind"], "sweep");
  EXPECT_EQ(sweep["rows"], sweep["points"]);
  // -q without --format json: nothing at all.
  const testing::CliRun silent = slicelab("compare " + kQuickstart + " --out a -q");
  EXPECT_EQ(silent.status, 0);
  EXPECT_EQ(silent.out, "");
}

TEST_F(CliConventions, SweepMergeAndReportPrintJson) {
  ASSERT_EQ(slicelab("sweep " + kSweep + " --shard 0/2 --out s0 -q").status, 0);
  ASSERT_EQ(slicelab("sweep " + kSweep + " --shard 1/2 --out s1 -q").status, 0);
  const testing::CliRun merged = slicelab("merge s0 s1 -o m --format json");
  ASSERT_EQ(merged.status, 0) << merged.err;
  const json m = json::parse(merged.out);
  EXPECT_EQ(m["kind"], "sweep");
  EXPECT_EQ(m["shard"]["count"], 1);
  EXPECT_EQ(merged.out, testing::read_file(tmp_ / "m" / "sweep.json"));

  ASSERT_EQ(slicelab("compare " + kQuickstart + " --out r -q").status, 0);
  const testing::CliRun report = slicelab("report r --format json -q");
  ASSERT_EQ(report.status, 0) << report.err;
  const json doc = json::parse(report.out);
  EXPECT_EQ(doc["format"], "slicelab.report/1");
  EXPECT_EQ(doc["markdown"], "r/report.md");
  EXPECT_EQ(doc["html"], "r/report.html");
  EXPECT_GT(doc["charts"].get<int>(), 0);
  EXPECT_TRUE(fs::exists(tmp_ / "r" / "report.html"));
}

TEST_F(CliConventions, EveryCommandThatWritesResultsHasFormatJson) {
  for (const std::string command :
       {"compare", "run", "plan", "sweep", "merge", "diff", "replay", "report", "calibrate",
        "import openb", "import csv", "import kubernetes", "kernels list", "kernels colocation",
        "explain"}) {
    SCOPED_TRACE(command);
    const testing::CliRun r = slicelab("help " + command);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--format"), std::string::npos) << r.out;
  }
}

TEST_F(CliConventions, ImportHelpNamesEveryImporter) {
  const testing::CliRun r = slicelab("import --help");
  EXPECT_EQ(r.status, 0);
  for (const std::string importer : {"openb", "csv", "kubernetes"}) {
    // In the description and in the list of subcommands ("  openb  Alibaba ...").
    EXPECT_NE(r.out.find(importer + ":"), std::string::npos) << importer << "\n" << r.out;
    EXPECT_NE(r.out.find("\n  " + importer + " "), std::string::npos) << importer << "\n" << r.out;
  }
}

}  // namespace
}  // namespace slicelab
