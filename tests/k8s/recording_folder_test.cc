// The recording folder's header as `serve extender --shadow --record DIR` writes it: created
// with its folder when absent, left alone when present, and a folder that is not a recording is
// refused rather than written into.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "backends/k8s/recording_folder.h"
#include "tests/support/temp_files.h"

namespace slicelab::k8s {
namespace {

using RecordingFolderTest = slicelab::testing::TempFilesTest;

RecordingHeader recording_folder_header() {
  return {"2026-11-30T12:00:00.000Z", "https://10.0.0.1:6443", "", "", "slicelab 0.1.0"};
}

std::string recording_folder_refusal(const std::filesystem::path& dir) {
  try {
    ensure_recording_folder(dir, recording_folder_header());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "accepted";
}

TEST_F(RecordingFolderTest, CreatesTheFolderAndItsHeaderOnce) {
  const auto dir = dir_ / "rec";
  EXPECT_TRUE(ensure_recording_folder(dir, recording_folder_header()));
  std::ifstream in(dir / "recording.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["format"], "slicelab-recording/1");
  EXPECT_EQ(j["started"], "2026-11-30T12:00:00.000Z");
  EXPECT_EQ(j["server"], "https://10.0.0.1:6443");
  EXPECT_EQ(j["namespace"], "");
  EXPECT_EQ(j["selector"], "");
  EXPECT_EQ(j["slicelab"], "slicelab 0.1.0");
  // Present: kept as it is, whatever the new start time.
  std::ofstream(dir / "events-000001.jsonl") << "{}\n";
  RecordingHeader later = recording_folder_header();
  later.started = "2026-12-01T00:00:00.000Z";
  EXPECT_FALSE(ensure_recording_folder(dir, later));
  std::ifstream again(dir / "recording.json");
  EXPECT_EQ(nlohmann::json::parse(again)["started"], "2026-11-30T12:00:00.000Z");
  EXPECT_FALSE(std::filesystem::exists(dir / "recording.json.tmp"));
}

TEST_F(RecordingFolderTest, RefusesWhatIsNotARecording) {
  write("notes.txt", "mine");
  EXPECT_NE(recording_folder_refusal(dir_).find("holds files but no recording.json"),
            std::string::npos)
      << recording_folder_refusal(dir_);
  const auto other = dir_ / "other";
  std::filesystem::create_directory(other);
  std::ofstream(other / "recording.json") << "{\"format\": \"slicelab-recording/2\"}";
  EXPECT_NE(recording_folder_refusal(other).find("\"format\" is not \"slicelab-recording/1\""),
            std::string::npos)
      << recording_folder_refusal(other);
  std::ofstream(other / "recording.json", std::ios::trunc) << "[1,";
  EXPECT_NE(recording_folder_refusal(other).find("not JSON"), std::string::npos);
  EXPECT_NE(recording_folder_refusal(dir_ / "no-parent" / "rec").find("does not exist"),
            std::string::npos);
  EXPECT_NE(recording_folder_refusal(dir_ / "notes.txt").find("not a folder"), std::string::npos);
}

}  // namespace
}  // namespace slicelab::k8s
