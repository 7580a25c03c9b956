// The recording's parts (docs/recording-format.md): trimmed objects, the writer's segments,
// rotation and seq, resume (torn line, gaps, folders that are not recordings), the recorder's
// dedup, RELIST and GONE lines, its limits, and a killed writer that loses nothing it wrote.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "backends/k8s/cluster_recorder.h"
#include "backends/k8s/recording_dedup.h"
#include "backends/k8s/recording_folder.h"
#include "backends/k8s/recording_resume.h"
#include "backends/k8s/recording_trim.h"
#include "backends/k8s/recording_writer.h"
#include "tests/support/recording_lines.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"

namespace slicelab::k8s {
namespace {

using nlohmann::json;
using slicelab::testing::read_recording_lines;
using slicelab::testing::TempFilesTest;

json rec_pod(const std::string& name, const std::string& uid, const std::string& rv,
             const std::string& node = "") {
  json p = {{"metadata",
             {{"name", name},
              {"namespace", "default"},
              {"uid", uid},
              {"resourceVersion", rv},
              {"managedFields", json::array({{{"manager", "kubectl"}}})}}},
            {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}},
            {"status", {{"phase", "Pending"}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

RecordingHeader rec_header(const std::string& ns = "", const std::string& selector = "") {
  RecordingHeader h;
  h.started = recording_timestamp();
  h.server = "http://127.0.0.1:1";
  h.pod_namespace = ns;
  h.selector = selector;
  h.slicelab = "test";
  return h;
}

std::vector<std::string> rec_types(const std::vector<json>& lines) {
  std::vector<std::string> t;
  t.reserve(lines.size());
  for (const json& l : lines) t.push_back(l.value("type", "?"));
  return t;
}

void expect_seq_from_one(const std::vector<json>& lines) {
  for (size_t i = 0; i < lines.size(); ++i)
    ASSERT_EQ(lines[i].value("seq", uint64_t{0}), i + 1) << lines[i].dump();
}

TEST(RecordingTrim, PodKeepsOnlyTheFormatsFields) {
  json pod = rec_pod("a", "u1", "7", "n1");
  pod["metadata"]["annotations"] = {{"hami.io/vgpu-devices-allocated", "GPU-1,0,1000:;"},
                                    {"kubectl.kubernetes.io/last-applied-configuration", "{}"}};
  pod["metadata"]["ownerReferences"] =
      json::array({{{"kind", "Job"}, {"name", "j"}, {"uid", "j1"}, {"controller", true}}});
  pod["spec"]["containers"][0]["resources"] = {{"limits", {{"nvidia.com/gpu", "1"}}}};
  pod["spec"]["containers"][0]["env"] = json::array({{{"name", "SECRET"}, {"value", "x"}}});
  pod["spec"]["volumes"] = json::array({{{"name", "v"}}});
  pod["status"]["conditions"] =
      json::array({{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", "t"}},
                   {{"type", "Ready"}, {"status", "True"}}});
  pod["status"]["containerStatuses"] = json::array(
      {{{"name", "c"},
        {"image", "busybox"},
        {"state", {{"terminated", {{"finishedAt", "t2"}, {"exitCode", 0}, {"signal", 9}}}}}}});
  const json t = trim_pod(pod);
  EXPECT_EQ(t["metadata"]["annotations"].size(), 1u);
  EXPECT_TRUE(t["metadata"]["annotations"].contains("hami.io/vgpu-devices-allocated"));
  EXPECT_FALSE(t["metadata"].contains("managedFields"));
  EXPECT_EQ(t["metadata"]["ownerReferences"][0],
            json({{"kind", "Job"}, {"name", "j"}, {"uid", "j1"}}));
  EXPECT_EQ(t["spec"]["nodeName"], "n1");
  EXPECT_EQ(t["spec"]["containers"][0],
            json({{"name", "c"}, {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}));
  EXPECT_FALSE(t["spec"].contains("volumes"));
  EXPECT_EQ(t["status"]["conditions"].size(), 1u);
  EXPECT_EQ(t["status"]["containerStatuses"][0],
            json({{"state", {{"terminated", {{"finishedAt", "t2"}, {"exitCode", 0}}}}}}));
  // Fields of the wrong shape do not throw.
  EXPECT_NO_THROW(trim_pod(json::parse(R"({"metadata":7,"spec":{"containers":"x"},"status":[]})")));
}

TEST(RecordingTrim, NodeKeepsInventoryAndTaints) {
  const json node = {
      {"metadata",
       {{"name", "n"}, {"uid", "u"}, {"labels", {{"a", "b"}}}, {"annotations", {{"x", "y"}}}}},
      {"spec", {{"taints", json::array({{{"key", "k"}}})}, {"podCIDR", "10/8"}}},
      {"status",
       {{"capacity", {{"nvidia.com/gpu", "8"}}},
        {"allocatable", {{"nvidia.com/gpu", "8"}}},
        {"images", json::array({1, 2})}}}};
  const json t = trim_node(node);
  EXPECT_FALSE(t["metadata"].contains("annotations"));
  EXPECT_FALSE(t["spec"].contains("podCIDR"));
  EXPECT_FALSE(t["status"].contains("images"));
  EXPECT_EQ(t["status"]["capacity"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(t["spec"]["taints"].size(), 1u);
}

class RecordingFolderTest : public TempFilesTest {
 protected:
  std::filesystem::path rec() const { return dir_ / "rec"; }
};

TEST_F(RecordingFolderTest, WriterRotatesBySizeAndSeqRunsOn) {
  RecordingDedup dedup;
  const RecordingResume r = open_recording_folder(rec(), rec_header(), dedup);
  EXPECT_FALSE(r.resumed);
  RecordingWriterOptions o;
  o.rotate_bytes = 200;
  {
    RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq, o);
    for (int i = 0; i < 20; ++i) w.append(R"("at":"x","type":"START","resumed":false)");
    EXPECT_GT(w.segment(), 3u);
  }
  const auto segments = list_recording_segments(rec());
  EXPECT_GT(segments.size(), 3u);
  for (const auto& s : segments) EXPECT_LE(std::filesystem::file_size(s.path), 200u + 80u);
  const auto lines = read_recording_lines(rec());
  ASSERT_EQ(lines.size(), 20u);
  expect_seq_from_one(lines);
  EXPECT_EQ(read_recording_header(rec())->slicelab, "test");
}

TEST_F(RecordingFolderTest, ResumeCutsATornLineAndContinuesTheSeq) {
  RecordingDedup dedup;
  RecordingResume r = open_recording_folder(rec(), rec_header(), dedup);
  {
    RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq);
    ClusterRecorder recorder(w, dedup, r.resumed);
    recorder.list_started(WatchKind::Pod);
    recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("a", "u1", "5"));
    recorder.synced(WatchKind::Pod);
    recorder.close();
  }
  const auto segment = recording_segment_path(rec(), 1);
  const auto whole = std::filesystem::file_size(segment);
  std::ofstream(segment, std::ios::app) << R"({"seq":4,"at":"x","kind":"Pod","type":"MOD)";
  RecordingDedup again;
  r = open_recording_folder(rec(), rec_header(), again);
  EXPECT_TRUE(r.resumed);
  EXPECT_EQ(r.next_seq, 4u);
  EXPECT_EQ(r.keep_bytes, whole);
  ASSERT_NE(again.find(WatchKind::Pod, "u1"), nullptr);
  EXPECT_EQ(again.find(WatchKind::Pod, "u1")->rv, "5");
  {
    RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq);
    ClusterRecorder recorder(w, again, r.resumed);
    // The restart's LIST holds the same state: not written again.
    recorder.list_started(WatchKind::Pod);
    recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("a", "u1", "5"));
    recorder.synced(WatchKind::Pod);
    EXPECT_EQ(recorder.stats().duplicates, 1u);
  }
  const auto lines = read_recording_lines(rec());
  expect_seq_from_one(lines);
  EXPECT_EQ(rec_types(lines),
            (std::vector<std::string>{"START", "RELIST", "LISTED", "START", "RELIST"}));
  EXPECT_EQ(lines[3]["resumed"], true);
  for (const json& l : lines) EXPECT_FALSE(l.is_discarded());
}

TEST_F(RecordingFolderTest, RefusesAFolderThatIsNotARecording) {
  std::filesystem::create_directories(rec());
  write("rec/notes.txt", "mine");
  RecordingDedup dedup;
  EXPECT_THROW(open_recording_folder(rec(), rec_header(), dedup), InputError);
  EXPECT_EQ(std::filesystem::file_size(rec() / "notes.txt"), 4u);
  EXPECT_FALSE(std::filesystem::exists(rec() / "recording.json"));
  write("rec/recording.json", R"({"format": "something-else/1"})");
  EXPECT_THROW(open_recording_folder(rec(), rec_header(), dedup), InputError);
  // No parent: refused, nothing created.
  EXPECT_THROW(open_recording_folder(dir_ / "no" / "rec", rec_header(), dedup), InputError);
}

TEST_F(RecordingFolderTest, RefusesAnotherNamespaceOrSelectorAndASeqGap) {
  RecordingDedup dedup;
  RecordingResume r = open_recording_folder(rec(), rec_header("team", "app=x"), dedup);
  {
    RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq);
    w.append(R"("at":"x","type":"START","resumed":false)");
  }
  try {
    open_recording_folder(rec(), rec_header("team", "app=y"), dedup);
    FAIL() << "another selector was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("selector 'app=x'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_recording_folder(rec(), rec_header("", "app=x"), dedup), InputError);
  std::ofstream(recording_segment_path(rec(), 1), std::ios::app)
      << R"({"seq":3,"at":"x","type":"START","resumed":true})"
      << "\n";
  try {
    open_recording_folder(rec(), rec_header("team", "app=x"), dedup);
    FAIL() << "a gap in seq was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("events-000001.jsonl:2: seq 3 where 2"), std::string::npos)
        << e.what();
  }
}

TEST_F(RecordingFolderTest, RelistRecordsChangesOnceAndMissedDeletionsAsGone) {
  RecordingDedup dedup;
  const RecordingResume r = open_recording_folder(rec(), rec_header(), dedup);
  RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq);
  ClusterRecorder recorder(w, dedup, false);
  recorder.list_reason(WatchKind::Pod, ListReason::Start);
  recorder.list_started(WatchKind::Pod);
  recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("a", "ua", "10"));
  recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("b", "ub", "11"));
  recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("c", "uc", "12"));
  recorder.synced(WatchKind::Pod);
  recorder.apply(WatchKind::Pod, WatchEvent::Modified, rec_pod("a", "ua", "13", "n1"));
  recorder.apply(WatchKind::Pod, WatchEvent::Modified, rec_pod("a", "ua", "13", "n1"));  // again
  recorder.apply(WatchKind::Pod, WatchEvent::Deleted, rec_pod("c", "uc", "14"));
  recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("d", "ud", "15"));
  recorder.apply(WatchKind::Pod, WatchEvent::Added, json{{"metadata", {{"name", "no-uid"}}}});
  // The watch expired: a, unchanged, and d, changed, are listed; b went unseen.
  recorder.list_reason(WatchKind::Pod, ListReason::Expired);
  recorder.list_started(WatchKind::Pod);
  recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("a", "ua", "13", "n1"));
  recorder.apply(WatchKind::Pod, WatchEvent::Added, rec_pod("d", "ud", "16", "n2"));
  recorder.synced(WatchKind::Pod);
  const RecorderStats s = recorder.stats();
  EXPECT_EQ(s.pods, 2u);
  EXPECT_EQ(s.duplicates, 2u);
  EXPECT_EQ(s.rejected, 1u);
  recorder.close();
  const auto lines = read_recording_lines(rec());
  expect_seq_from_one(lines);
  EXPECT_EQ(rec_types(lines),
            (std::vector<std::string>{"START", "RELIST", "LISTED", "LISTED", "LISTED", "MODIFIED",
                                      "DELETED", "ADDED", "RELIST", "LISTED", "GONE"}));
  EXPECT_EQ(lines[1]["reason"], "start");
  EXPECT_EQ(lines[8]["reason"], "410");
  EXPECT_EQ(lines[10]["uid"], "ub");
  EXPECT_EQ(lines[10]["rv"], "11");
  EXPECT_EQ(lines[10]["object"]["metadata"]["name"], "b");
  EXPECT_FALSE(lines[2]["object"]["metadata"].contains("managedFields"));
  std::set<std::pair<std::string, std::string>> states;
  for (const json& l : lines) {
    if (!l.contains("uid") || l["type"] == "GONE") continue;
    EXPECT_TRUE(states.emplace(l["uid"], l["rv"]).second) << l.dump();
  }
}

TEST_F(RecordingFolderTest, PastTheLimitTheRecordingStopsWithAnError) {
  RecordingDedup dedup(DedupLimits{3, 1});
  const RecordingResume r = open_recording_folder(rec(), rec_header(), dedup);
  RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq);
  ClusterRecorder recorder(w, dedup, false);
  for (int i = 0; i < 5; ++i)
    recorder.apply(WatchKind::Pod, WatchEvent::Added,
                   rec_pod("p" + std::to_string(i), "u" + std::to_string(i), "1"));
  EXPECT_EQ(dedup.size(WatchKind::Pod), 3u);
  EXPECT_NE(recorder.error().find("more than 3 pods"), std::string::npos) << recorder.error();
  // The recording ends at its last complete line.
  const auto lines = read_recording_lines(rec());
  EXPECT_EQ(lines.size(), 4u);
  expect_seq_from_one(lines);
}

// A child process appends lines and acknowledges each seq on a pipe once write() returned; the
// parent kills it with SIGKILL mid-stream. Every acknowledged line is in the files, and a resume
// goes on from the last one.
TEST_F(RecordingFolderTest, AKilledWriterLosesNothingAcknowledged) {
  RecordingDedup dedup;
  const RecordingResume r = open_recording_folder(rec(), rec_header(), dedup);
  int acks[2];
  ASSERT_EQ(::pipe(acks), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(acks[0]);
    RecordingWriterOptions o;
    o.rotate_bytes = 64 << 10;  // several segments
    RecordingWriter w(rec(), r.segment, r.keep_bytes, r.next_seq, o);
    for (;;) {
      const uint64_t seq = w.append(
          R"("at":"x","kind":"Pod","type":"ADDED","uid":"u","rv":"1","object":{"metadata":{}})");
      if (::write(acks[1], &seq, sizeof seq) != sizeof seq) ::_exit(3);
    }
  }
  ::close(acks[1]);
  uint64_t last = 0, seq = 0;
  while (last < 20000 && ::read(acks[0], &seq, sizeof seq) == sizeof seq) last = seq;
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(acks[0]);
  EXPECT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(last, 20000u);
  const auto lines = read_recording_lines(rec());
  ASSERT_GE(lines.size(), last);
  expect_seq_from_one(lines);
  RecordingDedup again;
  const RecordingResume resumed = open_recording_folder(rec(), rec_header(), again);
  EXPECT_EQ(resumed.next_seq, lines.size() + 1);
  EXPECT_GT(resumed.segment, 1u);
}

}  // namespace
}  // namespace slicelab::k8s
