// `slicelab diff A B` on hand-made results folders: changes in absolute and relative terms,
// seed noise (two standard errors of the difference of the means) where the folders hold seeds,
// "noise unknown" where they do not, the JSON document, the report and the output guard.
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

std::string policy_json(double p99, double cost) {
  return "{\"name\": \"p\", \"pods\": {\"completed\": 10}, \"queue_delay_s\": {\"p99\": " +
         std::to_string(p99) + "}, \"cost_usd\": " + std::to_string(cost) + "}";
}

class DiffCli : public testing::TempFilesTest {
 protected:
  // A folder of `compare` with seeds 1 and 2: the means and each seed's figures.
  void seeded(const std::string& name, double p99_1, double p99_2, double cost_1, double cost_2) {
    fs::create_directories(dir_ / name / "seed-1");
    fs::create_directories(dir_ / name / "seed-2");
    write(name + "/summary.json",
          "{\"format\": \"slicelab.seeds/1\", \"seeds\": [1, 2], \"policies\": [" +
              policy_json((p99_1 + p99_2) / 2, (cost_1 + cost_2) / 2) + "]}");
    write(name + "/seed-1/summary.json", "{\"format\": \"slicelab.summary/1\", \"policies\": [" +
                                             policy_json(p99_1, cost_1) + "]}");
    write(name + "/seed-2/summary.json", "{\"format\": \"slicelab.summary/1\", \"policies\": [" +
                                             policy_json(p99_2, cost_2) + "]}");
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
    for (const auto& m : doc["policies"][0]["metrics"])
      if (m["key"] == key) return &m;
    return nullptr;
  }
  std::string out_, err_;
};

TEST_F(DiffCli, SeedsGiveTheNoiseOfEachFigure) {
  // queue p99: A 90/110 (mean 100), B 190/210 (mean 200); variance 200 on each side, so two
  // standard errors = 2 sqrt(200/2 + 200/2) = 28.28: +100 s is beyond noise. cost: A 4/6, B
  // 4.5/6.5; variance 2 each, 2 sqrt(1 + 1) = 2.83: +0.5 is within noise.
  seeded("a", 90, 110, 4, 6);
  seeded("b", 190, 210, 4.5, 6.5);
  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --format json"), 0) << err_;
  const nlohmann::json doc = nlohmann::json::parse(out_);
  EXPECT_EQ(doc["format"], "slicelab.diff/1");
  EXPECT_EQ(doc["a"]["seeds"], 2);
  const nlohmann::json* p99 = metric(doc, "queue_delay_s.p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_DOUBLE_EQ((*p99)["change"].get<double>(), 100);
  EXPECT_DOUBLE_EQ((*p99)["change_percent"].get<double>(), 100);
  EXPECT_NEAR((*p99)["noise"].get<double>(), 2 * std::sqrt(200.0), 1e-6);
  EXPECT_EQ((*p99)["beyond_noise"], true);
  const nlohmann::json* cost = metric(doc, "cost_usd");
  ASSERT_NE(cost, nullptr);
  EXPECT_NEAR((*cost)["change"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR((*cost)["change_percent"].get<double>(), 10, 1e-9);
  EXPECT_NEAR((*cost)["noise"].get<double>(), 2 * std::sqrt(2.0), 1e-6);
  EXPECT_EQ((*cost)["beyond_noise"], false);
  const nlohmann::json* done = metric(doc, "pods.completed");
  ASSERT_NE(done, nullptr);
  EXPECT_EQ((*done)["change"], 0);

  ASSERT_EQ(slicelab("diff " + folders("a", "b")), 0) << err_;
  EXPECT_NE(out_.find("beyond noise"), std::string::npos) << out_;
  EXPECT_NE(out_.find("within noise"), std::string::npos) << out_;
  EXPECT_NE(out_.find("+100.0%"), std::string::npos) << out_;
  EXPECT_NE(out_.find("(1 unchanged figures with --wide)"), std::string::npos) << out_;
  std::istringstream lines(out_);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 120U) << line;
}

TEST_F(DiffCli, OneSeedSaysNoiseUnknownAndWritesAReport) {
  single("a", 100, 4);
  single("b", 150, 4);
  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --format json"), 0) << err_;
  const nlohmann::json doc = nlohmann::json::parse(out_);
  EXPECT_EQ(doc["noise"], "one seed: noise unknown");
  const nlohmann::json* p99 = metric(doc, "queue_delay_s.p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_DOUBLE_EQ((*p99)["change"].get<double>(), 50);
  EXPECT_DOUBLE_EQ((*p99)["change_percent"].get<double>(), 50);
  EXPECT_TRUE((*p99)["beyond_noise"].is_null());

  ASSERT_EQ(slicelab("diff " + folders("a", "b") + " --out " + shell_quote((dir_ / "d").string())),
            0)
      << err_;
  EXPECT_NE(out_.find("noise unknown"), std::string::npos) << out_;
  EXPECT_NE(out_.find("+50s"), std::string::npos) << out_;
  const std::string md = read_file(dir_ / "d" / "diff.md");
  EXPECT_NE(md.find("| p | queue_delay_s.p99 | 1.7m | 2.5m | +50s | +50.0% |"), std::string::npos)
      << md;
  EXPECT_NE(read_file(dir_ / "d" / "diff.html").find("Change of the headline figures"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "d" / "diff.json"))["format"],
            "slicelab.diff/1");

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
