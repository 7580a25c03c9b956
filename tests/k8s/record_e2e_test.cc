// `slicelab record` end to end against the API-server stand-in: the scripted hour of churn
// (tests/support/recording_churn.h) with a 410, a server restart and the recorder killed and
// restarted; --namespace and --selector; folders it must refuse.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "tests/support/cli_run.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/recording_churn.h"
#include "tests/support/recording_lines.h"
#include "tests/support/temp_files.h"

namespace slicelab::testing {
namespace {

using nlohmann::json;

class RecordBinaryTest : public TempFilesTest {};

TEST_F(RecordBinaryTest, AScriptedHourOfChurnIsRecordedWhole) {
  const std::filesystem::path rec = dir_ / "rec";
  const ChurnRecording churn = record_scripted_churn(SLICELAB_BINARY, rec);
  ASSERT_EQ(churn.error, "");
  const std::vector<json> lines = read_recording_lines(rec);
  ASSERT_FALSE(lines.empty());
  // seq runs 1, 2, 3, ... over every segment and both runs.
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_FALSE(lines[i].is_discarded()) << "line " << i;
    ASSERT_EQ(lines[i].value("seq", uint64_t{0}), i + 1) << lines[i].dump();
  }
  // Each state of each object once.
  std::set<std::pair<std::string, std::string>> states;
  std::map<std::string, std::string> placed;  // "namespace/name" -> the first node recorded
  std::set<std::string> gone, relist_reasons;
  std::vector<bool> starts;
  for (const json& l : lines) {
    const std::string type = l["type"];
    if (type == "START") starts.push_back(l["resumed"]);
    if (type == "RELIST") relist_reasons.insert(l["reason"].get<std::string>());
    if (!l.contains("uid")) continue;
    if (type == "GONE") {
      gone.insert(l["uid"].get<std::string>());
      continue;
    }
    EXPECT_TRUE(states.emplace(l["uid"], l["rv"]).second) << "twice: " << l.dump();
    const json& o = l["object"];
    if (l["kind"] == "Pod" && o.contains("spec") && o["spec"].contains("nodeName")) {
      placed.emplace(o["metadata"]["namespace"].get<std::string>() + "/" +
                         o["metadata"]["name"].get<std::string>(),
                     o["spec"]["nodeName"].get<std::string>());
    }
  }
  // Every placement the stand-in made is in the recording, on its node.
  ASSERT_GE(churn.placements.size(), 15u);
  for (const auto& [pod, node] : churn.placements) {
    ASSERT_TRUE(placed.contains(pod)) << pod << " is not recorded bound";
    EXPECT_EQ(placed[pod], node) << pod;
  }
  // The restart said so; the deletions missed while the recorder was down are GONE.
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_FALSE(starts[0]);
  EXPECT_TRUE(starts[1]);
  ASSERT_EQ(churn.deleted_while_down.size(), 2u);
  for (const std::string& uid : churn.deleted_while_down) EXPECT_TRUE(gone.contains(uid)) << uid;
  EXPECT_TRUE(relist_reasons.contains("start"));
  EXPECT_TRUE(relist_reasons.contains("410"));
  // The first run rotated before it was killed; the objects are trimmed.
  size_t segments = 0;
  for (const auto& e : std::filesystem::directory_iterator(rec))
    segments += e.path().extension() == ".jsonl" ? 1 : 0;
  EXPECT_GE(segments, 2u);
  for (const json& l : lines) {
    if (!l.contains("object")) continue;
    EXPECT_FALSE(l["object"]["metadata"].contains("managedFields")) << l.dump();
    if (l["kind"] == "Pod") {
      EXPECT_FALSE(l["object"]["spec"]["containers"][0].contains("env")) << l.dump();
    }
  }

  // The replay: `import recording` runs the as-recorded policy over what it wrote, and every
  // placement the stand-in made is reproduced (same node, no later than the cluster).
  const CliRun imported =
      run_program(SLICELAB_BINARY,
                  "import recording " + shell_quote(rec.string()) + " --out " +
                      shell_quote((dir_ / "replay").string()) + " --format json",
                  dir_, "import-recording");
  ASSERT_EQ(imported.status, 0) << imported.err;
  const json consistency = json::parse(imported.out)["consistency"];
  EXPECT_EQ(consistency["recorded"], churn.placements.size()) << consistency.dump() << imported.err;
  EXPECT_EQ(consistency["reproduced"], churn.placements.size()) << consistency.dump();
  EXPECT_EQ(consistency["mismatches"], 0) << consistency.dump();
}

TEST_F(RecordBinaryTest, NamespaceAndSelectorChooseThePodsAndBindTheFolder) {
  FakeApiServer api;
  api.add_node({{"metadata", {{"name", "n1"}}}});
  api.add_pod({{"metadata", {{"name", "in"}, {"namespace", "ml"}, {"labels", {{"app", "x"}}}}}});
  api.add_pod(
      {{"metadata", {{"name", "other-label"}, {"namespace", "ml"}, {"labels", {{"app", "y"}}}}}});
  api.add_pod(
      {{"metadata", {{"name", "other-ns"}, {"namespace", "web"}, {"labels", {{"app", "x"}}}}}});
  const std::string rec = (dir_ / "rec").string();
  const CliRun run = run_program(SLICELAB_BINARY,
                                 "record -q -o " + shell_quote(rec) + " --api-server " + api.url() +
                                     " --namespace ml --selector app=x --duration 1s",
                                 dir_, "first");
  ASSERT_EQ(run.status, 0) << run.err;
  std::set<std::string> pods, nodes;
  for (const json& l : read_recording_lines(rec)) {
    if (l.value("type", "") != "LISTED") continue;
    (l["kind"] == "Pod" ? pods : nodes).insert(l["object"]["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(pods, std::set<std::string>{"in"});
  EXPECT_EQ(nodes, std::set<std::string>{"n1"});
  const json header = json::parse(read_file(dir_ / "rec" / "recording.json"));
  EXPECT_EQ(header["format"], "slicelab-recording/1");
  EXPECT_EQ(header["namespace"], "ml");
  EXPECT_EQ(header["selector"], "app=x");
  EXPECT_EQ(header["server"], api.url());
  // Another selector does not resume this recording.
  const CliRun other = run_program(SLICELAB_BINARY,
                                   "record -q -o " + shell_quote(rec) + " --api-server " +
                                       api.url() + " --namespace ml --duration 1s",
                                   dir_, "other");
  EXPECT_EQ(other.status, 1);
  EXPECT_NE(other.err.find("selector 'app=x'"), std::string::npos) << other.err;
}

TEST_F(RecordBinaryTest, RefusesFoldersAndOptionsItCannotUse) {
  std::filesystem::create_directories(dir_ / "mine");
  write("mine/notes.txt", "keep me");
  const CliRun not_ours = run_program(SLICELAB_BINARY,
                                      "record -o " + shell_quote((dir_ / "mine").string()) +
                                          " --api-server http://127.0.0.1:1 --duration 1s",
                                      dir_, "mine");
  EXPECT_EQ(not_ours.status, 1);
  EXPECT_NE(not_ours.err.find("not a recording"), std::string::npos) << not_ours.err;
  EXPECT_EQ(read_file(dir_ / "mine" / "notes.txt"), "keep me");
  const CliRun small = run_program(SLICELAB_BINARY,
                                   "record -o " + shell_quote((dir_ / "r").string()) +
                                       " --api-server http://127.0.0.1:1 --rotate-size 10Ki",
                                   dir_, "small");
  EXPECT_EQ(small.status, 2);
  EXPECT_NE(small.err.find("--rotate-size: expected a size from 1Mi to 4Gi"), std::string::npos)
      << small.err;
  const CliRun no_cluster =
      run_program(SLICELAB_BINARY, "record -o " + shell_quote((dir_ / "r").string()), dir_, "nc");
  EXPECT_EQ(no_cluster.status, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r"));
}

}  // namespace
}  // namespace slicelab::testing
