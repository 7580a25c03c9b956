// The recording reader (docs/recording-format.md) on the hand-written folders of
// tests/data/recordings/ and on small folders written here: each pod's life as the replay reads
// it, duplicates, GONE, a resumed recorder's second segment, torn last lines, seq gaps and order.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "tests/support/temp_files.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_recording.h"
#include "workloads/rfc3339.h"

namespace slicelab {
namespace {

const std::string kRecordings = std::string(SLICELAB_SOURCE_DIR) + "/tests/data/recordings";

double rec_time(const std::string& text) {
  std::string error;
  return parse_rfc3339_seconds(text, error).value();
}

const KubePod& rec_pod(const KubeRecording& r, const std::string& name) {
  for (const KubePod& p : r.objects.pods)
    if (p.name == name) return p;
  throw std::runtime_error("no pod " + name);
}

std::string rec_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KubeRecording, ReadsEachPodsLifeAcrossSegments) {
  const KubeRecording r = read_kube_recording(kRecordings + "/consistent");
  EXPECT_EQ(r.segments, 2u);
  EXPECT_DOUBLE_EQ(r.started_s, rec_time("2026-11-30T12:00:00Z"));
  EXPECT_DOUBLE_EQ(r.ended_s, rec_time("2026-11-30T12:55:00Z"));
  EXPECT_EQ(r.restarts, 1u);
  EXPECT_EQ(r.duplicates, 1u);  // train-1 LISTED again with the same resourceVersion
  EXPECT_EQ(r.torn_lines, 1u);  // the last segment's unterminated line
  EXPECT_EQ(r.missing_events, 0u);
  ASSERT_EQ(r.objects.nodes.size(), 4u);  // gpu-c joined and left: kept
  EXPECT_EQ(r.nodes_joined, 1u);
  EXPECT_EQ(r.nodes_left, 1u);
  ASSERT_EQ(r.objects.pods.size(), 6u);

  const KubePod& train = rec_pod(r, "ml/train-1");
  EXPECT_EQ(train.node_name, "gpu-b");
  EXPECT_EQ(train.phase, "Succeeded");
  EXPECT_DOUBLE_EQ(train.created_s, rec_time("2026-11-30T12:05:00Z"));
  EXPECT_DOUBLE_EQ(train.started_s.value(), rec_time("2026-11-30T12:05:10Z"));
  EXPECT_DOUBLE_EQ(train.finished_s.value(), rec_time("2026-11-30T12:35:10Z"));
  // GONE: a deletion missed while the watch was down ends the pod at the re-list.
  const KubePod& infer = rec_pod(r, "ml/infer-2");
  EXPECT_EQ(infer.phase, "Running");
  EXPECT_DOUBLE_EQ(infer.finished_s.value(), rec_time("2026-11-30T12:40:00Z"));
  EXPECT_FALSE(rec_pod(r, "ml/warm-0").finished_s.has_value());  // still running at the end
  EXPECT_FALSE(rec_pod(r, "ml/pending-3").finished_s.has_value());
  EXPECT_TRUE(rec_pod(r, "ml/pending-3").node_name.empty());
  EXPECT_DOUBLE_EQ(rec_pod(r, "ml/gone-early").finished_s.value(),
                   rec_time("2026-11-30T12:47:00Z"));
}

TEST(KubeRecording, WarnsOfASeqGapAndCountsTheMissingEvents) {
  const KubeRecording r = read_kube_recording(kRecordings + "/missing-deletion");
  EXPECT_EQ(r.missing_events, 1u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("events-000001.jsonl:7: seq 8 follows 6"), std::string::npos)
      << r.warnings[0];
}

class KubeRecordingFolder : public testing::TempFilesTest {
 protected:
  void header() {
    write("recording.json",
          R"({"format": "slicelab-recording/1", "started": "2026-11-30T12:00:00.000Z"})");
  }
};

TEST_F(KubeRecordingFolder, RefusesAFolderThatIsNotARecording) {
  EXPECT_NE(rec_error([&] { read_kube_recording(dir_.string()); }).find("no recording.json"),
            std::string::npos);
  write("recording.json", R"({"format": "slicelab-recording/2", "started": "x"})");
  EXPECT_NE(rec_error([&] { read_kube_recording(dir_.string()); }).find("slicelab-recording/1"),
            std::string::npos);
}

TEST_F(KubeRecordingFolder, RefusesSeqThatDoesNotGrowNamingFileAndLine) {
  header();
  write("events-000001.jsonl",
        "{\"seq\":1,\"at\":\"2026-11-30T12:00:00.000Z\",\"type\":\"START\"}\n"
        "{\"seq\":1,\"at\":\"2026-11-30T12:00:01.000Z\",\"type\":\"START\"}\n");
  const std::string e = rec_error([&] { read_kube_recording(dir_.string()); });
  EXPECT_NE(e.find("events-000001.jsonl:2: seq 1 after 1"), std::string::npos) << e;
}

TEST_F(KubeRecordingFolder, RefusesALineThatIsNotJsonOrLacksAField) {
  header();
  write("events-000001.jsonl", "{\"seq\":1,\"at\":\"2026-11-30T12:00:00.000Z\"}\n");
  std::string e = rec_error([&] { read_kube_recording(dir_.string()); });
  EXPECT_NE(e.find("events-000001.jsonl:1: the event has no 'type'"), std::string::npos) << e;
  write("events-000001.jsonl", "{\"seq\":1,\n");
  e = rec_error([&] { read_kube_recording(dir_.string()); });
  EXPECT_NE(e.find("events-000001.jsonl:1: not a JSON event"), std::string::npos) << e;
  write("events-000001.jsonl",
        "{\"seq\":1,\"at\":\"2026-11-30T12:00:00.000Z\",\"type\":\"ADDED\",\"kind\":\"Secret\","
        "\"uid\":\"u\",\"rv\":\"1\",\"object\":{}}\n");
  e = rec_error([&] { read_kube_recording(dir_.string()); });
  EXPECT_NE(e.find("kind 'Secret'"), std::string::npos) << e;
}

TEST_F(KubeRecordingFolder, RefusesALineLongerThanTheLimit) {
  header();
  {
    std::ofstream f(dir_ / "events-000001.jsonl", std::ios::binary);
    f << std::string(kMaxRecordingLineBytes + 1, ' ') << "\n";
  }
  const std::string e = rec_error([&] { read_kube_recording(dir_.string()); });
  EXPECT_NE(e.find("events-000001.jsonl:1: a line longer than the 4 MiB"), std::string::npos) << e;
}

TEST_F(KubeRecordingFolder, AnEmptyRecordingHasNoPodsAndEndsWhereItStarts) {
  header();
  write("events-000001.jsonl", "");
  write("events-notes.jsonl", "not a segment");  // not events-<digits>.jsonl: not read
  const KubeRecording r = read_kube_recording(dir_.string());
  EXPECT_TRUE(r.objects.pods.empty());
  EXPECT_DOUBLE_EQ(r.ended_s, r.started_s);
  EXPECT_EQ(r.segments, 1u);
}

}  // namespace
}  // namespace slicelab
