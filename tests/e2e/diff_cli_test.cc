// `slicelab diff A[:policy] B[:policy]` on hand-made results folders: changes in absolute and
// relative terms, the noise test (paired on the same seeds, Welch's on different ones, "noise
// unknown" with one seed), verdicts and the verdict line, --fail-if's exit code 4, pairing
// policies across names, the scenario warning, the JSON document, the report and the output guard.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::shell_quote;

std::string policy_json(double p99, double cost, const std::string& name = "p") {
  return "{\"name\": \"" + name +
         "\", \"pods\": {\"completed\": 10}, \"queue_delay_s\": {\"p99\": " + std::to_string(p99) +
         "}, \"cost_usd\": " + std::to_string(cost) + "}";
}

class DiffCli : public testing::TempFilesTest {
 protected:
  // A folder of `compare` with seeds `first` and `first + 1`: the means and each seed's figures.
  void seeded(const std::string& name, double p99_1, double p99_2, double cost_1, double cost_2,
              int first = 1, const std::string& policy = "p") {
    const std::string s1 = std::to_string(first), s2 = std::to_string(first + 1);
    fs::create_directories(dir_ / name / ("seed-" + s1));
    fs::create_directories(dir_ / name / ("seed-" + s2));
    write(name + "/summary.json",
          "{\"format\": \"slicelab.seeds/1\", \"seeds\": [" + s1 + ", " + s2 +
              "], \"policies\": [" +
              policy_json((p99_1 + p99_2) / 2, (cost_1 + cost_2) / 2, policy) + "]}");
    write(name + "/seed-" + s1 + "/summary.json",
          "{\"format\": \"slicelab.summary/1\", \"policies\": [" +
              policy_json(p99_1, cost_1, policy) + "]}");
    write(name + "/seed-" + s2 + "/summary.json",
          "{\"format\": \"slicelab.summary/1\", \"policies\": [" +
              policy_json(p99_2, cost_2, policy) + "]}");
  }
  void single(const std::string& name, double p99, double cost) {
    fs::create_directories(dir_ / name);
    write(name + "/summary.json",
          "{\"format\": \"slicelab.summary/1\", \"policies\": [" + policy_json(p99, cost) + "]}");
  }
  int slicelab(const std::string& args) {
    const testing::CliRun r = testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab");
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  std::string folders(const std::string& a, const std::string& b) {
    return shell_quote((dir_ / a).string()) + " " + shell_quote((dir_ / b).string());
  }
  const nlohmann::json* metric(const nlohmann::json& doc, const std::string& key) {
    for (const auto& m : doc["pairs"][0]["metrics"])
      if (m["key"] == key) return &m;
    return nullptr;
  }
  std::string out_, err_;
};

TEST_F(DiffCli, DifferentSeedsAreJudgedByWelchsTest) {
  // queue p99: A 90/110 (seeds 1, 2), B 190/210 (seeds 3, 4): variance 200 each side, Welch's
  // df = 2, half width t(2) sqrt(200/2 + 200/2) = 4.303 * 14.14 = 60.85: +100 s is beyond noise
  // (worse: lower is better). cost: A 4/6, B 4.5/6.5: 4.303 sqrt(2/2 + 2/2) = 6.08: +0.5 within.
  seeded("a", 90, 110, 4, 6);
  seeded("b", 190, 210, 4.5, 6.5, 3);
  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --format json"), 0) << err_;
  const nlohmann::json doc = nlohmann::json::parse(out_);
  EXPECT_EQ(doc["format"], "slicelab.diff/2");
  EXPECT_EQ(doc["test"], "welch");
  EXPECT_EQ(doc["a"]["runs"], 2);
  EXPECT_EQ(doc["b"]["seeds"], nlohmann::json::parse("[3, 4]"));
  ASSERT_EQ(doc["warnings"].size(), 1U);
  EXPECT_NE(
      err_.find("warning: the two sides ran different seeds: A 2 seeds (1, 2), B 2 seeds (3, 4);"),
      std::string::npos)
      << err_;
  const double t2 = 4.302652729911275;
  const nlohmann::json* p99 = metric(doc, "queue_delay_s.p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_DOUBLE_EQ((*p99)["change"].get<double>(), 100);
  EXPECT_DOUBLE_EQ((*p99)["change_percent"].get<double>(), 100);
  EXPECT_NEAR((*p99)["noise"].get<double>(), t2 * std::sqrt(200.0), 1e-6);
  EXPECT_EQ((*p99)["beyond_noise"], true);
  EXPECT_EQ((*p99)["better"], "lower");
  EXPECT_EQ((*p99)["verdict"], "worse");
  const nlohmann::json* cost = metric(doc, "cost_usd");
  ASSERT_NE(cost, nullptr);
  EXPECT_NEAR((*cost)["change"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR((*cost)["change_percent"].get<double>(), 10, 1e-9);
  EXPECT_NEAR((*cost)["noise"].get<double>(), t2 * std::sqrt(2.0), 1e-6);
  EXPECT_EQ((*cost)["beyond_noise"], false);
  EXPECT_EQ((*cost)["verdict"], "within noise");
  const nlohmann::json* done = metric(doc, "pods.completed");
  ASSERT_NE(done, nullptr);
  EXPECT_EQ((*done)["change"], 0);
  EXPECT_EQ((*done)["verdict"], "unchanged");
  EXPECT_EQ(doc["verdict"],
            "B against A (2 seeds against 2, unpaired (Welch)): worse on queue_p99; within noise "
            "on 1 other; unchanged on 1");

  ASSERT_EQ(slicelab("diff " + folders("a", "b")), 0) << err_;
  EXPECT_NE(out_.find("worse"), std::string::npos) << out_;
  EXPECT_NE(out_.find("within noise"), std::string::npos) << out_;
  EXPECT_NE(out_.find("+100.0%"), std::string::npos) << out_;
  EXPECT_NE(out_.find("(1 unchanged figures with --wide)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("\nB against A (2 seeds against 2, unpaired (Welch)): worse on queue_p99"),
            std::string::npos)
      << out_;
  std::istringstream lines(out_);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 120U) << line;
}

// The same numbers on the same seeds: paired, every difference is the same, so both changes are
// beyond noise; --fail-if turns the worse queue p99 into exit code 4.
TEST_F(DiffCli, SameSeedsArePairedAndFailIfExitsFour) {
  seeded("a", 90, 110, 4, 6, 1, "fgd");
  seeded("b", 190, 210, 4.5, 6.5, 1, "best-fit");
  const std::string ab = shell_quote((dir_ / "a").string() + ":fgd") + " " +
                         shell_quote((dir_ / "b").string() + ":best-fit");
  ASSERT_EQ(slicelab("diff " + ab + " --format json"), 0) << err_;
  const nlohmann::json doc = nlohmann::json::parse(out_);
  EXPECT_EQ(doc["test"], "paired");
  EXPECT_EQ(doc["pairing"], "named");
  EXPECT_EQ(doc["pairs"][0]["a_policy"], "fgd");
  EXPECT_EQ(doc["pairs"][0]["b_policy"], "best-fit");
  EXPECT_EQ((*metric(doc, "queue_delay_s.p99"))["verdict"], "worse");
  EXPECT_EQ((*metric(doc, "cost_usd"))["verdict"], "worse");
  EXPECT_EQ(doc["verdict"],
            "B against A (2 seeds, paired): worse on queue_p99, cost; unchanged on 1");

  EXPECT_EQ(slicelab("diff " + ab + " --fail-if worse:queue_p99"), 4) << err_;
  EXPECT_NE(err_.find("--fail-if worse:queue_p99 held: fgd -> best-fit queue_delay_s.p99"),
            std::string::npos)
      << err_;
  EXPECT_EQ(slicelab("diff " + ab + " -q --fail-if worse:completed"), 0) << err_;
  EXPECT_EQ(out_, "");
  // Swapped, B is better: nothing got worse.
  const std::string ba = shell_quote((dir_ / "b").string() + ":best-fit") + " " +
                         shell_quote((dir_ / "a").string() + ":fgd");
  EXPECT_EQ(slicelab("diff " + ba + " --fail-if worse:queue_p99,worse:cost"), 0) << err_;
  EXPECT_NE(out_.find("better on queue_p99, cost"), std::string::npos) << out_;
  // Within noise never fails: differences +1 and -1 around a mean of 0... and +1, 0.
  seeded("c", 91, 110, 4, 6, 1, "fgd");
  EXPECT_EQ(slicelab("diff " + ab.substr(0, ab.find(' ')) + " " +
                     shell_quote((dir_ / "c").string()) + " --fail-if worse:queue_p99"),
            0)
      << err_;
  EXPECT_NE(out_.find("within noise"), std::string::npos) << out_;
  EXPECT_EQ(slicelab("diff " + ab + " --fail-if worse:allocation"), 2);
  EXPECT_NE(err_.find("'allocation' has no better direction"), std::string::npos) << err_;
}

TEST_F(DiffCli, NoPolicyInCommonIsAnErrorSayingHowToPair) {
  seeded("a", 90, 110, 4, 6, 1, "fgd");
  seeded("b", 190, 210, 4.5, 6.5, 1, "best-fit");
  EXPECT_EQ(slicelab("diff " + folders("a", "b")), 1);
  EXPECT_NE(err_.find("hold no policy of the same name (A: fgd; B: best-fit): name the two to "
                      "compare as A:policy B:policy"),
            std::string::npos)
      << err_;
  EXPECT_EQ(out_, "");
  EXPECT_EQ(slicelab("diff " + shell_quote((dir_ / "a").string() + ":nope") + " " +
                     shell_quote((dir_ / "b").string())),
            1);
  EXPECT_NE(err_.find("no policy named 'nope' (the folder holds: fgd)"), std::string::npos) << err_;
}

TEST_F(DiffCli, DifferentScenariosAreWarnedAbout) {
  fs::create_directories(dir_ / "a");
  fs::create_directories(dir_ / "b");
  write("a/summary.json",
        "{\"format\": \"slicelab.summary/1\", \"scenario\": \"x\", \"cluster\": {\"nodes\": 4, "
        "\"gpus\": 32}, \"policies\": [" +
            policy_json(100, 4) + "]}");
  write("b/summary.json",
        "{\"format\": \"slicelab.summary/1\", \"scenario\": \"x\", \"cluster\": {\"nodes\": 8, "
        "\"gpus\": 64}, \"policies\": [" +
            policy_json(100, 4) + "]}");
  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --format json --fail-if worse:cost"), 0)
      << err_;
  EXPECT_NE(err_.find("warning: the two sides ran different scenarios (cluster nodes 4 against 8; "
                      "cluster GPUs 32 against 64)"),
            std::string::npos)
      << err_;
  EXPECT_NE(err_.find("note: --fail-if: one seed on each side"), std::string::npos) << err_;
  const nlohmann::json doc = nlohmann::json::parse(out_);
  ASSERT_EQ(doc["warnings"].size(), 1U);
  EXPECT_EQ(doc["test"], "none");
}

TEST_F(DiffCli, OneSeedSaysNoiseUnknownAndWritesAReport) {
  single("a", 100, 4);
  single("b", 150, 4);
  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --format json"), 0) << err_;
  const nlohmann::json doc = nlohmann::json::parse(out_);
  EXPECT_EQ(doc["test"], "none");
  const nlohmann::json* p99 = metric(doc, "queue_delay_s.p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_DOUBLE_EQ((*p99)["change"].get<double>(), 50);
  EXPECT_DOUBLE_EQ((*p99)["change_percent"].get<double>(), 50);
  EXPECT_TRUE((*p99)["beyond_noise"].is_null());
  EXPECT_EQ((*p99)["verdict"], "changed");

  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --out " + shell_quote((dir_ / "d").string())),
            0)
      << err_;
  EXPECT_NE(out_.find("noise unknown"), std::string::npos) << out_;
  EXPECT_NE(out_.find("+50s"), std::string::npos) << out_;
  const std::string md = read_file(dir_ / "d" / "diff.md");
  EXPECT_NE(md.find("| p | queue_delay_s.p99 | 1.7m | 2.5m | +50s | +50.0% | changed |"),
            std::string::npos)
      << md;
  EXPECT_NE(read_file(dir_ / "d" / "diff.html").find("Change of the headline figures"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "d" / "diff.json"))["format"],
            "slicelab.diff/2");

  // A folder slicelab did not write is never replaced, and what it holds stays.
  fs::create_directories(dir_ / "mine");
  write("mine/notes.txt", "mine");
  EXPECT_EQ(
      slicelab("diff " + folders("a", "b") + " -q --out " + shell_quote((dir_ / "mine").string())),
      1);
  EXPECT_EQ(read_file(dir_ / "mine" / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(dir_ / "mine" / "diff.md"));
}

TEST_F(DiffCli, AFolderWithoutSummaryIsNamed) {
  single("a", 100, 4);
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(slicelab("diff " + folders("a", "empty")), 1);
  EXPECT_NE(err_.find("empty: no summary.json"), std::string::npos) << err_;
}

// Before: a negative count, a summary of another format and a list were compared as if they
// were figures (or ended in nlohmann's "cannot use value() with array"); a seed's summary too.
TEST_F(DiffCli, SummariesOfTheWrongShapeAreRefusedAtTheirValue) {
  single("a", 100, 4);
  fs::create_directories(dir_ / "neg");
  write("neg/summary.json",
        "{\"format\": \"slicelab.summary/1\",\n \"policies\": [{\"name\": "
        "\"p\", \"pods\": {\"completed\": -3}}]}");
  EXPECT_EQ(slicelab("diff " + folders("a", "neg")), 1);
  EXPECT_EQ(err_, "error: " + (dir_ / "neg" / "summary.json").string() +
                      ":2:51: policies[0].pods.completed: expected a whole number of at least 0, "
                      "found -3\n");
  EXPECT_EQ(out_, "");
  fs::create_directories(dir_ / "v99");
  write("v99/summary.json", "{\"format\": \"summary/99\", \"policies\": []}");
  EXPECT_EQ(slicelab("diff " + folders("v99", "a")), 1);
  EXPECT_EQ(err_, "error: " + (dir_ / "v99" / "summary.json").string() +
                      ":1:12: format: expected 'slicelab.summary/1' or 'slicelab.seeds/1' (the "
                      "formats this slicelab reads), found \"summary/99\"\n");
  fs::create_directories(dir_ / "list");
  write("list/summary.json", "[1, 2]");
  EXPECT_EQ(slicelab("diff " + folders("a", "list")), 1);
  EXPECT_EQ(err_, "error: " + (dir_ / "list" / "summary.json").string() +
                      ":1:1: top level: expected an object, found a list\n");
  seeded("s", 100, 120, 4, 5);
  write("s/seed-2/summary.json", "{\"policies\": [{\"name\": \"p\", \"cost_usd\": \"cheap\"}]}");
  EXPECT_EQ(slicelab("diff " + folders("s", "a")), 1);
  EXPECT_EQ(err_, "error: " + (dir_ / "s" / "seed-2" / "summary.json").string() +
                      ":1:41: policies[0].cost_usd: expected a number, found \"cheap\"\n");
}

}  // namespace
}  // namespace slicelab
