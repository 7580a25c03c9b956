// The caps file: what the device plugin writes reads back as the same caps; every malformed file
// fails closed with its line and column; only a regular file is read (no link, FIFO, directory,
// oversized file; on the fixed path, only one on a read-only mount); and the file's caps win
// over the environment's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/interposer/caps_file.h"

namespace slicelab::interposer {
namespace {

namespace fs = std::filesystem;
constexpr uint64_t kGiB = uint64_t{1} << 30;

Getenv env_of(const std::map<std::string, std::string>& env) {
  return [&env](const char* n) -> const char* {
    const auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

std::vector<std::string> names_of(const std::map<std::string, std::string>& env) {
  std::vector<std::string> names;
  names.reserve(env.size());
  for (const auto& [k, v] : env) names.push_back(k);
  return names;
}

void expect_failed_closed(const Config& c, const std::string& why) {
  EXPECT_NE(c.fail_closed.find(why), std::string::npos) << c.fail_closed;
  for (const auto& d : c.devices) {
    EXPECT_EQ(d.memory_bytes, uint64_t{0});
    EXPECT_EQ(d.sm_percent, kFailClosedPercent);
  }
  EXPECT_EQ(c.other.memory_bytes, uint64_t{0});
}

TEST(CapsFile, WhatThePluginWritesReadsBackAsTheSameCaps) {
  CapsFileContents in;
  in.devices = {{kGiB, 30}, {UINT64_MAX, 100}, {uint64_t{3000} << 20, 100}};
  in.region_path = "/var/run/slicelab/region.cache";
  const std::string text = caps_file_text(in);
  EXPECT_EQ(text,
            "slicelab-interposer-caps 1\n"
            "# the interposer's caps for one container (docs/interposer.md); written by slicelab\n"
            "SLICELAB_SHARED_REGION=/var/run/slicelab/region.cache\n"
            "SLICELAB_MEMORY_LIMIT_0=1073741824\n"
            "SLICELAB_SM_LIMIT_0=30\n"
            "SLICELAB_MEMORY_LIMIT_2=3145728000\n");
  const Config c = parse_caps_file(text, "/etc/slicelab/caps");
  EXPECT_EQ(c.fail_closed, "");
  EXPECT_EQ(c.caps_file, "/etc/slicelab/caps");
  EXPECT_EQ(c.region_path, in.region_path);
  EXPECT_EQ(c.devices[0].memory_bytes, kGiB);
  EXPECT_EQ(c.devices[0].sm_percent, 30);
  EXPECT_EQ(c.devices[1].memory_bytes, UINT64_MAX);
  EXPECT_EQ(c.devices[1].sm_percent, 100);
  EXPECT_EQ(c.devices[2].memory_bytes, uint64_t{3000} << 20);
  EXPECT_EQ(c.devices[3].memory_bytes, UINT64_MAX);
  EXPECT_TRUE(c.warnings.empty());
  // Hand-written files may use quantities, comments, blank lines and the global names.
  const Config h = parse_caps_file(
      "slicelab-interposer-caps 1\n\n# caps\nSLICELAB_MEMORY_LIMIT=1Gi\nSLICELAB_SM_LIMIT=25\n"
      "SLICELAB_MEMORY_LIMIT_1=512Mi\nSLICELAB_NVML_RECONCILE=1\nSLICELAB_REGION_GROUP=0",
      "caps");
  EXPECT_EQ(h.fail_closed, "");
  EXPECT_EQ(h.devices[0].memory_bytes, kGiB);
  EXPECT_EQ(h.devices[1].memory_bytes, uint64_t{512} << 20);
  EXPECT_EQ(h.other.memory_bytes, kGiB);
  EXPECT_EQ(h.devices[7].sm_percent, 25);
  EXPECT_TRUE(h.nvml_reconcile);
  EXPECT_EQ(h.region_gid, 0);
}

TEST(CapsFile, TheWriterRefusesWhatTheReaderWouldNot) {
  CapsFileContents in;
  in.devices.resize(kMaxDevices + 1);
  EXPECT_THROW(caps_file_text(in), std::invalid_argument);
  in.devices.resize(1);
  for (const char* region : {"relative/region", "/a/../b", "/a\nSLICELAB_MEMORY_LIMIT=1Pi"}) {
    in.region_path = region;
    EXPECT_THROW(caps_file_text(in), std::invalid_argument) << region;
  }
}

TEST(CapsFile, AMalformedFileFailsClosedAtItsLineAndColumn) {
  const std::string h = "slicelab-interposer-caps 1\n";
  struct Case {
    std::string text;
    const char* why;
  };
  const Case cases[] = {
      {"", "caps:1:1: expected the header 'slicelab-interposer-caps 1', found an empty file"},
      {"SLICELAB_MEMORY_LIMIT=1Gi\n", "caps:1:1: expected the header"},
      {"slicelab-interposer-caps 2\nSLICELAB_MEMORY_LIMIT=1Gi\n",
       "found 'slicelab-interposer-caps 2' (a version this interposer does not read)"},
      {h + "SLICELAB_MEMORY_LIMIT_0=1Gx\n",
       "caps:2:25: SLICELAB_MEMORY_LIMIT_0: expected a byte count or a size such as 1Gi, 512Mi, "
       "1.5Gi, 1G or HAMi-core's 1024m, 1g, found the suffix 'Gx'"},
      {h + "SLICELAB_MEMORY_LIMIT=\n", "caps:2:23: SLICELAB_MEMORY_LIMIT: expected"},
      {h + "SLICELAB_SM_LIMIT_3=150\n",
       "caps:2:21: SLICELAB_SM_LIMIT_3: expected a whole percentage 0-100, found '150'"},
      {h + "SLICELAB_MEMORY_LIMIT_16=1Gi\n", "caps:2:1: expected one of SLICELAB_MEMORY_LIMIT"},
      {h + "SLICELAB_MEMORY_LIMIT_01=1Gi\n", "found 'SLICELAB_MEMORY_LIMIT_01'"},
      {h + "SLICELAB_GPU_LIMIT=1\n", "found 'SLICELAB_GPU_LIMIT'"},
      {h + "CUDA_DEVICE_MEMORY_LIMIT=1g\n", "found 'CUDA_DEVICE_MEMORY_LIMIT'"},
      {h + "SLICELAB_SHARED_REGION=relative\n", "SLICELAB_SHARED_REGION: expected an absolute"},
      {h + "SLICELAB_NVML_RECONCILE=yes\n", "expected 0 or 1, found 'yes'"},
      {h + "SLICELAB_MEMORY_LIMIT=1Gi\nSLICELAB_MEMORY_LIMIT=2Gi\n",
       "caps:3:1: expected each name once, found SLICELAB_MEMORY_LIMIT again"},
      {h + "just words\n", "caps:2:1: expected NAME=VALUE, found 'just words'"},
      {h + "=1Gi\n", "caps:2:1: expected NAME=VALUE"},
      {h + "SLICELAB_MEMORY_LIMIT=1Gi\r\n",
       "caps:2:26: expected printable ASCII, found the byte \\x0d"},
      {h + std::string("SLICELAB_SHARED_REGION=/r\0x\n", 28),
       "caps:2:26: expected printable ASCII"},
      {h + "# " + std::string(kMaxCapsLineBytes, 'x') + "\n",
       "caps:2:1025: expected a line of at most 1024 bytes, found 1026"},
      {h + std::string(kMaxCapsFileBytes, '\n'), "caps:1:1: expected a caps file of at most 8192"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 80));
    expect_failed_closed(parse_caps_file(c.text, "caps"), c.why);
  }
}

class CapsFileOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/slicelab-caps-unit-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = dir + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string dir;
};

TEST_F(CapsFileOnDisk, OnlyARegularFileIsReadAndALinkIsNotFollowed) {
  const std::string caps = write("caps", "slicelab-interposer-caps 1\nSLICELAB_MEMORY_LIMIT=1Gi\n");
  std::string why;
  ASSERT_EQ(read_caps_file(caps, false, &why),
            "slicelab-interposer-caps 1\nSLICELAB_MEMORY_LIMIT=1Gi\n")
      << why;
  // A link to a file with the caps one would like: not followed.
  const std::string link = dir + "/link";
  ASSERT_EQ(symlink(caps.c_str(), link.c_str()), 0);
  EXPECT_FALSE(read_caps_file(link, false, &why));
  EXPECT_EQ(why, link + ": expected a regular file, found a symbolic link");
  // A FIFO is refused without being opened (nothing writes to it: an open would block).
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(read_caps_file(fifo, false, &why));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(why, fifo + ": expected a regular file, found a FIFO");
  EXPECT_FALSE(read_caps_file(dir, false, &why));
  EXPECT_EQ(why, dir + ": expected a regular file, found a directory");
  EXPECT_FALSE(read_caps_file(dir + "/absent", false, &why));
  EXPECT_NE(why.find("cannot read " + dir + "/absent: No such file"), std::string::npos) << why;
  const std::string big = write("big", std::string(kMaxCapsFileBytes + 1, '#'));
  EXPECT_FALSE(read_caps_file(big, false, &why));
  EXPECT_EQ(why, big + ": expected a caps file of at most 8192 bytes, found 8193");
  EXPECT_TRUE(read_caps_file(write("full", std::string(kMaxCapsFileBytes, '#')), false, &why));
}

TEST_F(CapsFileOnDisk, AtTheFixedPathOnlyAFileOnAReadOnlyMountIsTaken) {
  // A file a process could write itself (in /tmp, writable) is not the plugin's read-only mount.
  const std::string caps = write("caps", "slicelab-interposer-caps 1\nSLICELAB_MEMORY_LIMIT=1Gi\n");
  std::string why;
  EXPECT_FALSE(read_caps_file(caps, true, &why));
  EXPECT_EQ(why, caps +
                     ": expected a file on a read-only mount (as the device plugin mounts it), "
                     "found one on a writable file system");
  const Config c = load_caps(locate_caps(caps, nullptr), env_of({}), {});
  expect_failed_closed(c, "found one on a writable file system");
  EXPECT_EQ(c.caps_file, caps);
}

TEST_F(CapsFileOnDisk, TheFixedPathWinsThenTheOverrideThenTheEnvironment) {
  const std::string fixed = dir + "/fixed";
  const std::string other = write("other", "slicelab-interposer-caps 1\n");
  CapsSource s = locate_caps(fixed, other.c_str());
  EXPECT_EQ(s.path, other);
  EXPECT_FALSE(s.fixed);
  s = locate_caps(fixed, nullptr);
  EXPECT_EQ(s.path, "");
  EXPECT_EQ(locate_caps(fixed, "").path, "");
  // Anything at the fixed path, even a dangling link, is the caps file (and is then refused).
  ASSERT_EQ(symlink((dir + "/nowhere").c_str(), fixed.c_str()), 0);
  s = locate_caps(fixed, other.c_str());
  EXPECT_EQ(s.path, fixed);
  EXPECT_TRUE(s.fixed);
  expect_failed_closed(load_caps(s, env_of({}), {}), fixed +
                                                         ": expected a regular file, found "
                                                         "a symbolic link");
  // Under a file that is no folder: nothing there.
  EXPECT_EQ(locate_caps(other + "/caps", nullptr).path, "");
}

TEST_F(CapsFileOnDisk, TheFilesCapsAndRegionWinOverTheEnvironments) {
  const std::string caps =
      write("caps",
            "slicelab-interposer-caps 1\nSLICELAB_SHARED_REGION=/var/run/slicelab/region.cache\n"
            "SLICELAB_MEMORY_LIMIT_0=1Gi\nSLICELAB_SM_LIMIT_0=30\n");
  const std::map<std::string, std::string> env{
      {"SLICELAB_MEMORY_LIMIT", "8g"}, {"SLICELAB_MEMORY_LIMIT_0", "8g"},
      {"CUDA_DEVICE_SM_LIMIT", "100"}, {"SLICELAB_SHARED_REGION", "/tmp/mine.region"},
      {"SLICELAB_MEASURE_EVERY", "8"}, {"SLICELAB_CAPS_FILE", caps}};
  Config c = load_caps(locate_caps(dir + "/fixed", caps.c_str()), env_of(env), names_of(env));
  EXPECT_EQ(c.fail_closed, "");
  EXPECT_EQ(c.caps_file, caps);
  EXPECT_EQ(c.devices[0].memory_bytes, kGiB);
  EXPECT_EQ(c.devices[0].sm_percent, 30);
  EXPECT_EQ(c.devices[1].memory_bytes, UINT64_MAX);
  EXPECT_EQ(c.region_path, "/var/run/slicelab/region.cache");
  EXPECT_EQ(c.measure_every, 8);  // not a cap: the environment's
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "the caps and region come from " + caps +
                               "; the environment's (SLICELAB_*, CUDA_DEVICE_*) differ and are "
                               "ignored");
  // An environment that says the same (the plugin sets both) is not warned about.
  const std::map<std::string, std::string> same{
      {"SLICELAB_MEMORY_LIMIT_0", "1024m"},
      {"SLICELAB_SM_LIMIT_0", "30"},
      {"SLICELAB_SHARED_REGION", "/var/run/slicelab/region.cache"}};
  c = load_caps(locate_caps(dir + "/fixed", caps.c_str()), env_of(same), names_of(same));
  EXPECT_TRUE(c.warnings.empty()) << c.warnings[0];
  // A garbage value in the environment does not matter beside a file; a bad file fails closed
  // whatever the environment says.
  const std::map<std::string, std::string> bad{{"SLICELAB_MEMORY_LIMIT", "lots"}};
  EXPECT_EQ(
      load_caps(locate_caps(dir + "/fixed", caps.c_str()), env_of(bad), names_of(bad)).fail_closed,
      "");
  const std::string broken = write("broken", "slicelab-interposer-caps 1\nSLICELAB_SM_LIMIT=x\n");
  expect_failed_closed(
      load_caps(locate_caps(dir + "/fixed", broken.c_str()), env_of(env), names_of(env)),
      broken + ":2:19: SLICELAB_SM_LIMIT: expected a whole percentage 0-100, found 'x'");
  // Without a file: the environment.
  c = load_caps(locate_caps(dir + "/fixed", nullptr), env_of(env), names_of(env));
  EXPECT_EQ(c.caps_file, "");
  EXPECT_EQ(c.devices[0].memory_bytes, uint64_t{8} << 30);
  EXPECT_EQ(c.region_path, "/tmp/mine.region");
}

}  // namespace
}  // namespace slicelab::interposer
