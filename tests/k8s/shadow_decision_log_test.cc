// The shadow extender's decision log (--record DIR): one JSON line per decision, a START line at
// each start, FIGURES lines from shadow mode's running figures; segments rotate by size, a torn
// last line is cut on resume, a full queue drops and counts instead of waiting, and hostile
// names cannot break a line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/k8s/decision_line.h"
#include "backends/k8s/shadow_decision_log.h"
#include "tests/support/temp_files.h"

namespace slicelab::k8s {
namespace {

using DecisionLogTest = slicelab::testing::TempFilesTest;

std::vector<std::string> decision_log_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<std::filesystem::path> decision_log_segments(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().starts_with("decisions-")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

void decision_log_decide(ShadowDecisionLog& log, const std::string& pod, const std::string& node,
                         std::vector<int> gpus, size_t feasible) {
  log.decided({pod, "uid-" + pod, node, gpus, feasible});
}

TEST_F(DecisionLogTest, WritesStartDecisionsAndFigures) {
  ShadowDecisionLog log(dir_, "fgd");
  log.set_figures_source([] {
    return std::optional<DecisionFiguresLine>(DecisionFiguresLine{3, 1, 1, 1, 2.5, 0.75, 0});
  });
  log.start();
  decision_log_decide(log, "team-a/train-0", "gpu-a100-0", {0, 3}, 4);
  decision_log_decide(log, "team-b/infer-1", "gpu-l4-2", {1}, 2);
  ASSERT_TRUE(log.flush(std::chrono::seconds(5)));
  // Written before stop: a reader sees the lines while the extender runs.
  EXPECT_EQ(decision_log_lines(dir_ / "decisions-000001.jsonl").size(), 3u);
  log.stop();
  const auto lines = decision_log_lines(dir_ / "decisions-000001.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  const auto start = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(start["type"], "START");
  EXPECT_EQ(start["resumed"], false);
  EXPECT_EQ(start["policy"], "fgd");
  const auto d = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(d["type"], "DECISION");
  EXPECT_EQ(d["namespace"], "team-a");
  EXPECT_EQ(d["name"], "train-0");
  EXPECT_EQ(d["uid"], "uid-team-a/train-0");
  EXPECT_EQ(d["node"], "gpu-a100-0");
  EXPECT_EQ(d["gpus"], nlohmann::json::array({0, 3}));
  EXPECT_EQ(d["feasible"], 4);
  EXPECT_EQ(d["at"].get<std::string>().size(), 24u);  // 2026-11-30T12:00:01.250Z
  EXPECT_EQ(d["at"].get<std::string>().back(), 'Z');
  const auto f = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(f["type"], "FIGURES");
  EXPECT_EQ(f["decisions"], 3);
  EXPECT_EQ(f["same_node"], 1);
  EXPECT_EQ(f["fragmented_gpus_actual"], 2.5);
  EXPECT_EQ(f["fragmented_gpus_slicelab"], 0.75);
  EXPECT_EQ(log.figures().lines, 2);
  EXPECT_EQ(log.figures().dropped, 0);
}

TEST_F(DecisionLogTest, RotatesBySizeAndKeepsEveryLine) {
  DecisionLogOptions options;
  options.rotate_bytes = 400;
  {
    ShadowDecisionLog log(dir_, "best-fit", options);
    log.start();
    for (int i = 0; i < 12; ++i)
      decision_log_decide(log, "ns/pod-" + std::to_string(i), "n1", {i % 8}, 3);
  }
  const auto files = decision_log_segments(dir_);
  ASSERT_GE(files.size(), 3u);
  std::vector<std::string> pods;
  for (size_t i = 0; i < files.size(); ++i) {
    char want[64];
    std::snprintf(want, sizeof want, "decisions-%06zu.jsonl", i + 1);
    EXPECT_EQ(files[i].filename(), want);
    EXPECT_LE(std::filesystem::file_size(files[i]), options.rotate_bytes);
    for (const auto& l : decision_log_lines(files[i])) {
      const auto j = nlohmann::json::parse(l);
      if (j["type"] == "DECISION") pods.push_back(j["name"]);
    }
  }
  ASSERT_EQ(pods.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(pods[static_cast<size_t>(i)], "pod-" + std::to_string(i));
}

TEST_F(DecisionLogTest, ResumesTheLastSegmentCuttingATornLine) {
  write("decisions-000001.jsonl", "{\"type\":\"START\"}\n");
  write("decisions-000003.jsonl", "{\"type\":\"START\"}\n{\"type\":\"DECIS");
  {
    ShadowDecisionLog log(dir_, "fgd");
    EXPECT_EQ(log.segment().filename(), "decisions-000003.jsonl");
    log.start();
    decision_log_decide(log, "ns/p", "n2", {}, 1);
  }
  const auto lines = decision_log_lines(dir_ / "decisions-000003.jsonl");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "{\"type\":\"START\"}");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["resumed"], true);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["name"], "p");
  EXPECT_EQ(decision_log_lines(dir_ / "decisions-000001.jsonl").size(), 1u);  // closed: untouched
}

TEST_F(DecisionLogTest, AFullQueueDropsAndCounts) {
  DecisionLogOptions options;
  options.queue_lines = 4;
  ShadowDecisionLog log(dir_, "fgd", options);
  // The writer is not running yet: the queue fills and the rest is dropped, without waiting.
  for (int i = 0; i < 10; ++i) decision_log_decide(log, "ns/p" + std::to_string(i), "n", {0}, 1);
  EXPECT_EQ(log.figures().dropped, 6);
  log.start();
  log.stop();
  EXPECT_EQ(log.figures().lines, 4);
  EXPECT_EQ(decision_log_lines(log.segment()).size(), 5u);  // START and the four that fitted
}

TEST_F(DecisionLogTest, HostileNamesCannotBreakALine) {
  ShadowDecisionLog log(dir_, "fgd");
  log.start();
  const std::string evil = "ns/a\"b\\c\nd\x01";
  decision_log_decide(log, evil, "n\"1", {0}, 1);
  decision_log_decide(log, "ns/" + std::string(2000, 'x'), "n", {0},
                      1);  // longer than a line may be
  log.stop();
  const auto lines = decision_log_lines(log.segment());
  ASSERT_EQ(lines.size(), 2u);
  const auto j = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(j["name"], "a\"b\\c\nd\x01");
  EXPECT_EQ(j["node"], "n\"1");
  EXPECT_EQ(log.figures().dropped, 1);
}

TEST(DecisionLine, FormatsTimeAndRefusesWhatDoesNotFit) {
  using std::chrono::milliseconds;
  const std::chrono::system_clock::time_point t(milliseconds(1796040001250));
  EXPECT_EQ(format_recording_time(t), "2026-11-30T12:00:01.250Z");
  char small[40];
  const int gpus[] = {0};
  EXPECT_EQ(format_decision_line(small, t, {"ns/p", "u", "n", gpus, 1}), 0u);
  char enough[256];
  const size_t n = format_decision_line(enough, t, {"ns/p", "u", "n", gpus, 1});
  EXPECT_EQ(std::string(enough, n),
            "{\"at\":\"2026-11-30T12:00:01.250Z\",\"type\":\"DECISION\",\"namespace\":\"ns\","
            "\"name\":\"p\",\"uid\":\"u\",\"node\":\"n\",\"gpus\":[0],\"feasible\":1}\n");
}

}  // namespace
}  // namespace slicelab::k8s
