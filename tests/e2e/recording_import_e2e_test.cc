// `slicelab import recording` and `import kubernetes --history` run as a user runs them: the
// scenario folder, the as-recorded policy's consistency report (counts and reasons), and
// `slicelab compare` on the folder written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <tuple>
#include <utility>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kReplaySrc = SLICELAB_SOURCE_DIR;

class RecordingImportE2e : public testing::TempFilesTest {
 protected:
  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab", "", kReplaySrc);
  }
  nlohmann::json consistency(const fs::path& out) {
    return nlohmann::json::parse(testing::read_file(out / "consistency.json"));
  }
};

TEST_F(RecordingImportE2e, EveryPlacementOfAConsistentRecordingReproduces) {
  const fs::path out = dir_ / "replay";
  const auto r = slicelab("import recording tests/data/recordings/consistent --out " +
                          testing::shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("as-recorded: 3 of 3 recorded placements reproduced; 1 pod(s) never bound"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("torn write"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 node(s) joined and 1 left"), std::string::npos) << r.out;
  for (const char* f : {"scenario.yaml", "trace.yaml", "snapshot.yaml", "placements.yaml",
                        "consistency.md", "consistency.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  // The recorded GPUs: warm-0 on gpu-a's GPU 1 (the first picker would take 0), infer-2 on 0.
  const std::string placements = testing::read_file(out / "placements.yaml");
  EXPECT_NE(placements.find("{pod: ml/warm-0, node: gpu-a, gpus: [1]}"), std::string::npos)
      << placements;
  const nlohmann::json c = consistency(out);
  EXPECT_EQ(c["recorded"], 3);
  EXPECT_EQ(c["reproduced"], 3);
  EXPECT_EQ(c["mismatches"], 0);
  EXPECT_TRUE(c["reasons"].empty());
  // The folder runs as it is, every policy of it.
  const auto cmp = slicelab("compare " + testing::shell_quote((out / "scenario.yaml").string()) +
                            " --out " + testing::shell_quote((dir_ / "results").string()));
  ASSERT_EQ(cmp.status, 0) << cmp.out << cmp.err;
  for (const char* policy : {"as-recorded", "as-is", "fgd-gpu-share"})
    EXPECT_NE(cmp.out.find(policy), std::string::npos) << policy << "\n" << cmp.out;
  // The folder is replaced again, unless a file was added to it; --force replaces it then too.
  const std::string again = "import recording tests/data/recordings/consistent --out " +
                            testing::shell_quote(out.string());
  EXPECT_EQ(slicelab(again).status, 0);
  write("replay/notes.txt", "mine");
  EXPECT_NE(slicelab(again).status, 0);
  EXPECT_EQ(slicelab(again + " --force").status, 0);
}

TEST_F(RecordingImportE2e, AMissedDeletionLeavesTheNodeFullAndIsReported) {
  const fs::path out = dir_ / "replay";
  const auto r = slicelab("import recording tests/data/recordings/missing-deletion --out " +
                          testing::shell_quote(out.string()) + " --format json");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("seq 8 follows 6"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["recording"]["missing_events"], 1);
  const nlohmann::json c = consistency(out);
  EXPECT_EQ(j["consistency"], c);
  EXPECT_EQ(c["recorded"], 6);
  EXPECT_EQ(c["reproduced"], 3);  // d-4 on cpu-0, a-1 on gpu-a, f-6 on gpu-b's GPU 0
  EXPECT_EQ(c["mismatches"], 3);
  ASSERT_EQ(c["reasons"].size(), 3u);
  // f-6's deletion is missing too: g-7, recorded on the same GPU, gets the other one.
  EXPECT_EQ(c["reasons"]["recorded-gpus-taken"]["count"], 1);
  EXPECT_EQ(c["reasons"]["recorded-gpus-taken"]["pods"][0]["pod"], "ml/g-7");
  EXPECT_NE(c["reasons"]["recorded-gpus-taken"]["pods"][0]["detail"].get<std::string>().find(
                "recorded on GPU(s) 0, which were taken at 180s: ran on 1"),
            std::string::npos)
      << c;
  // a-1's deletion is missing: it holds both GPUs of gpu-a when b-2 arrives.
  EXPECT_EQ(c["reasons"]["node-full-gpus"]["count"], 1);
  EXPECT_EQ(c["reasons"]["node-full-gpus"]["pods"][0]["pod"], "ml/b-2");
  EXPECT_EQ(c["reasons"]["node-full-gpus"]["pods"][0]["node"], "gpu-a");
  EXPECT_NE(c["reasons"]["node-full-gpus"]["pods"][0]["detail"].get<std::string>().find(
                "asks 1 GPUs, 2 of 2 in use at 600s"),
            std::string::npos);
  EXPECT_EQ(c["reasons"]["node-missing"]["count"], 1);
  EXPECT_EQ(c["reasons"]["node-missing"]["pods"][0]["pod"], "ml/c-3");
  const std::string md = testing::read_file(out / "consistency.md");
  EXPECT_NE(md.find("## node-full-gpus (1 pod)"), std::string::npos) << md;
}

// waits-2 arrives while first-1 holds both GPUs of gpu-a, in the cluster as in the replay: it
// started when first-1 ended (12:10:15), the replay starts it no later, so nothing is amiss.
TEST_F(RecordingImportE2e, APodThatWaitedInTheClusterTooIsReproduced) {
  const fs::path out = dir_ / "replay";
  const auto r = slicelab("import recording tests/data/recordings/waited --out " +
                          testing::shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json c = consistency(out);
  EXPECT_EQ(c["recorded"], 2);
  EXPECT_EQ(c["reproduced"], 2) << c;
}

TEST_F(RecordingImportE2e, KubernetesHistoryReplaysFinishedPodsWhereTheyRan) {
  const fs::path out = dir_ / "history";
  const auto r = slicelab(
      "import kubernetes --history --nodes tests/data/kubernetes-history/nodes.json --pods "
      "tests/data/kubernetes-history/pods.json --out " +
      testing::shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("as-recorded: 3 of 3 recorded placements reproduced"), std::string::npos)
      << r.out;
  const std::string trace = testing::read_file(out / "trace.yaml");
  EXPECT_NE(trace.find("batch/done-2"), std::string::npos) << trace;
  const std::string scenario = testing::read_file(out / "scenario.yaml");
  EXPECT_NE(scenario.find("placement: as-recorded"), std::string::npos) << scenario;
  EXPECT_NE(scenario.find("placements: placements.yaml"), std::string::npos) << scenario;
}

TEST_F(RecordingImportE2e, AsRecordedWithoutPlacementsIsRefused) {
  write("s.yaml",
        "name: s\ncluster:\n  node_groups:\n    - {name: g, count: 1, cpu_milli: 1000, "
        "memory_mib: 1000, gpu_model: A100-80GB, gpus_per_node: 1}\nworkload:\n  pods:\n"
        "    - {name: p, arrival: 0s, duration: 1s, gpu_count: 1}\npolicies:\n"
        "  - {name: r, placement: as-recorded, sharing: whole-card}\n");
  const auto r = slicelab("validate " + testing::shell_quote((dir_ / "s.yaml").string()));
  EXPECT_NE(r.status, 0);
  EXPECT_NE((r.out + r.err).find("needs workload.placements"), std::string::npos) << r.out << r.err;
}

TEST_F(RecordingImportE2e, ARecordingWithoutNodesIsRefusedAndNothingWritten) {
  fs::create_directories(dir_ / "rec");
  write("rec/recording.json",
        R"({"format": "slicelab-recording/1", "started": "2026-11-30T12:00:00.000Z"})");
  write("rec/events-000001.jsonl",
        "{\"seq\":1,\"at\":\"2026-11-30T12:00:00.000Z\",\"type\":\"START\"}\n");
  const auto r = slicelab("import recording " + testing::shell_quote((dir_ / "rec").string()) +
                          " --out " + testing::shell_quote((dir_ / "out").string()));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("the recording has no Node events"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(RecordingImportE2e, PlacementsFileErrorsNameTheEntry) {
  const std::string scenario =
      "name: s\ncluster:\n  node_groups:\n    - {name: g, count: 1, cpu_milli: 1000, "
      "memory_mib: 1000, gpu_model: A100-80GB, gpus_per_node: 2, node_names: [n0]}\n"
      "workload:\n  pods:\n    - {name: p, arrival: 0s, duration: 1s, gpu_count: 1}\n"
      "  placements: placements.yaml\npolicies:\n"
      "  - {name: r, placement: as-recorded, sharing: whole-card}\n";
  write("s.yaml", scenario);
  const auto validate = [&](const std::string& placements) {
    write("placements.yaml", placements);
    const auto r = slicelab("validate " + testing::shell_quote((dir_ / "s.yaml").string()));
    return std::make_pair(r.status, r.out + r.err);
  };
  EXPECT_EQ(validate("placements:\n  - {pod: p, node: n0, gpus: [1]}\n").first, 0);
  auto [status, text] = validate("placements:\n  - {pod: p, node: n9}\n");
  EXPECT_NE(status, 0);
  EXPECT_NE(text.find("placements.yaml:2:"), std::string::npos) << text;
  EXPECT_NE(text.find("no node 'n9' in the cluster"), std::string::npos) << text;
  std::tie(status, text) = validate("placements:\n  - {pod: p, node: n0, gpus: [2]}\n");
  EXPECT_NE(status, 0);
  EXPECT_NE(text.find("placements[0].gpus[0]"), std::string::npos) << text;
  std::tie(status, text) =
      validate("placements:\n  - {pod: p, node: n0}\n  - {pod: p, node: n0}\n");
  EXPECT_NE(status, 0);
  EXPECT_NE(text.find("pod 'p' is placed twice"), std::string::npos) << text;
}

}  // namespace
}  // namespace slicelab
