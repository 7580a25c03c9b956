// `slicelab report` and `compare --report` end to end: the files they write, what report.md
// holds for a shipped scenario, determinism, and errors that name what is wrong.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/report_fixtures.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kSource = SLICELAB_SOURCE_DIR;
const std::string kBinary = SLICELAB_BINARY;

using testing::read_file;

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class ReportCli : public testing::TempFilesTest {
 protected:
  // Runs `env slicelab args`; returns the exit status and fills out_/err_.
  int slicelab(const std::string& args, const std::string& env = "") {
    const testing::CliRun r = testing::run_program(kBinary, args, dir_, "slicelab", env);
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  std::string out_, err_;
};

TEST_F(ReportCli, CompareWithReportWritesBothFilesForQuickstart) {
  const std::string scenario = kSource + "/scenarios/quickstart.yaml";
  const fs::path out = dir_ / "quickstart";
  ASSERT_EQ(
      slicelab("compare --seeds 1 '" + scenario + "' -q --report --out '" + out.string() + "'"), 0)
      << err_;
  EXPECT_EQ(out_, "");  // --quiet
  for (const char* f : {"summary.json", "pods.csv", "timeseries.csv", "report.md", "report.html"})
    EXPECT_TRUE(fs::is_regular_file(out / f)) << f;

  const Scenario sc = load_scenario(scenario, std::nullopt);
  const std::string md = read_file(out / "report.md");
  EXPECT_EQ(md.rfind("# slicelab report: quickstart\n", 0), 0U) << md.substr(0, 200);
  for (const char* heading : {"## Summary", "## Headline metrics", "## Queueing delay and JCT",
                              "## Over time", "## Per GPU model", "### Policies compared"})
    EXPECT_NE(md.find(heading), std::string::npos) << heading;
  // One summary row per policy, with the same allocation ratio as summary.json.
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  for (const auto& p : summary.at("policies")) {
    const std::string name = p.at("name");
    const double alloc = p.at("allocation_ratio").at("time_weighted");
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * alloc);
    const std::regex row("\\| " + name + " \\| [^\\n]*\\| " +
                         std::regex_replace(pct, std::regex("\\."), "\\.") + " \\|");
    EXPECT_TRUE(std::regex_search(md, row)) << name << " " << pct;
  }
  EXPECT_EQ(summary.at("policies").size(), sc.policies.size());

  const std::string html = read_file(out / "report.html");
  const size_t charts = occurrences(html, "<div class=\"chart\" id=\"chart-");
  EXPECT_GE(charts, 11U);  // 7 bars, 2 CDFs, 2 time series, per-model bars
  EXPECT_NE(html.find("data-charts-expected=\"" + std::to_string(charts) + "\""),
            std::string::npos);
  // Self-contained: no external scripts, styles or images, and Vega inlined.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_NE(html.find("mods['vega-parser'] = module.exports"), std::string::npos);
  EXPECT_LT(html.size(), 2'000'000U);
}

TEST_F(ReportCli, MultiSeedFolderReportsMeansAndTheFirstSeedsDistributions) {
  // quickstart with two seeds: summary.json holds means, per-pod files live in seed-<n>/.
  std::string yaml = read_file(kSource + "/scenarios/quickstart.yaml");
  yaml += "\nseeds: [5, 3]\n";
  const std::string scenario = write("two-seeds.yaml", yaml);
  const fs::path out = dir_ / "seeds";
  ASSERT_EQ(slicelab("compare '" + scenario + "' -q --report --out '" + out.string() + "'"), 0)
      << err_;
  const std::string md = read_file(out / "report.md");
  EXPECT_NE(md.find("Seeds 5, 3: tables and bars show the mean over seeds; distributions and "
                    "time series are those of seed-5."),
            std::string::npos)
      << md.substr(0, 600);
  const std::string html = read_file(out / "report.html");
  EXPECT_NE(html.find("CDF of queueing delay"), std::string::npos);
  EXPECT_NE(html.find("GPU allocation ratio over time"), std::string::npos);
}

TEST_F(ReportCli, ReportCommandIsDeterministicAndSaysWhatItWrote) {
  testing::write_full_fixture(dir_ / "r");
  ASSERT_EQ(slicelab("report '" + (dir_ / "r").string() + "'"), 0) << err_;
  EXPECT_NE(out_.find("report.md"), std::string::npos) << out_;
  EXPECT_NE(out_.find("(18 charts)"), std::string::npos) << out_;
  const std::string first_html = read_file(dir_ / "r" / "report.html");
  const std::string first_md = read_file(dir_ / "r" / "report.md");
  EXPECT_NE(first_md.find("Recommendation: Use alpha with 48 GPUs"), std::string::npos);
  ASSERT_EQ(slicelab("report -q '" + (dir_ / "r").string() + "'"), 0) << err_;
  EXPECT_EQ(out_, "");
  EXPECT_EQ(read_file(dir_ / "r" / "report.html"), first_html);
  EXPECT_EQ(read_file(dir_ / "r" / "report.md"), first_md);
}

TEST_F(ReportCli, ErrorsNameTheProblem) {
  EXPECT_NE(slicelab("report '" + (dir_ / "nowhere").string() + "'"), 0);
  EXPECT_NE(err_.find("nowhere"), std::string::npos) << err_;

  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(slicelab("report '" + (dir_ / "empty").string() + "'"), 1);
  EXPECT_NE(err_.find("not a results folder"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "empty" / "report.md"));

  // Without Vega the Markdown report is still written and the error names the package.
  testing::write_full_fixture(dir_ / "r", false);
  EXPECT_EQ(slicelab("report '" + (dir_ / "r").string() + "'",
                     "SLICELAB_VEGA_DIR='" + (dir_ / "empty").string() + "'"),
            1);
  EXPECT_NE(err_.find("libjs-vega"), std::string::npos) << err_;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "r" / "report.md"));
  EXPECT_FALSE(fs::exists(dir_ / "r" / "report.html"));
}

// nlohmann's own messages used to reach the user ("unexpected content: cannot use value() with
// array", "type must be boolean, but is string"), and a summary of another format was reported
// as if it were one of this version's. Each is now refused at its value, and nothing is written.
TEST_F(ReportCli, ResultsOfTheWrongShapeAreRefusedAtTheirValue) {
  const auto results = [&](const std::string& name, const std::string& file,
                           const std::string& text) {
    fs::create_directories(dir_ / name);
    std::ofstream(dir_ / name / file, std::ios::binary) << text;
    std::ofstream(dir_ / name / ".slicelab-results")
        << "slicelab results folder\n# Written by slicelab.\n"
        << file << "\n";
    return dir_ / name;
  };
  const fs::path list = results("list", "summary.json", "[1, 2]\n");
  EXPECT_EQ(slicelab("report " + testing::shell_quote(list.string())), 1);
  EXPECT_EQ(err_, "error: " + (list / "summary.json").string() +
                      ":1:1: top level: expected an object, found a list\n");
  const fs::path plan = results(
      "plan", "plan.json",
      "{\"kind\": \"plan\",\n \"policies\": [{\"policy\": \"a\", \"feasible\": \"yes\"}]}\n");
  EXPECT_EQ(slicelab("report " + testing::shell_quote(plan.string())), 1);
  EXPECT_EQ(err_, "error: " + (plan / "plan.json").string() +
                      ":2:43: policies[0].feasible: expected true or false, found \"yes\"\n");
  const fs::path v99 =
      results("v99", "summary.json", "{\"format\": \"summary/99\", \"policies\": []}\n");
  EXPECT_EQ(slicelab("report " + testing::shell_quote(v99.string())), 1);
  EXPECT_EQ(err_, "error: " + (v99 / "summary.json").string() +
                      ":1:12: format: expected 'slicelab.summary/1' or 'slicelab.seeds/1' (the "
                      "formats this slicelab reads), found \"summary/99\"\n");
  for (const fs::path& d : {list, plan, v99}) {
    EXPECT_FALSE(fs::exists(d / "report.md")) << d;
    EXPECT_FALSE(fs::exists(d / "report.html")) << d;
  }
  // A valid key of 2,000 characters is read, and listed as the figure it is.
  const fs::path wide =
      results("wide", "summary.json",
              "{\"format\": \"slicelab.summary/1\", \"policies\": [{\"name\": \"p\", \"" +
                  std::string(2000, 'k') + "\": 7}]}\n");
  EXPECT_EQ(slicelab("report -q " + testing::shell_quote(wide.string())), 0) << err_;
  EXPECT_NE(read_file(wide / "report.md").find("| " + std::string(2000, 'k') + " | 7 |"),
            std::string::npos);
}

}  // namespace
}  // namespace slicelab
