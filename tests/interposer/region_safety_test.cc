// The shared region cannot be hijacked and the cap cannot be escaped: each test starts the test
// client preloaded with the interposer against a region file that is not sound (a link, someone
// else's, open to others, truncated, corrupted, its lock forged) or a configuration that tries to
// get round the container's cap (a sibling's higher limit, a device beyond the table, a typo).
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

#include "backends/interposer/shared_region.h"
#include "tests/interposer/harness.h"

namespace {

using namespace slicelab::test;
namespace ip = slicelab::interposer;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

template <class T>
void poke(const std::string& path, size_t offset, T value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)),
            static_cast<ssize_t>(sizeof value));
  close(fd);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

constexpr const char* kMiB = "1048576";

class Region : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/slicelab-region-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    region = dir + "/pod.region";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
  Env env(Env e = {}) const {
    e["SLICELAB_SHARED_REGION"] = region;
    return e;
  }
  // A sound region, as the interposer leaves it after one capped process.
  void make_region() {
    const Result r = run({"try", kMiB}, env({{"SLICELAB_MEMORY_LIMIT", "64m"}}));
    ASSERT_NE(r.out.find("result=0 "), std::string::npos) << r.out;
    ASSERT_EQ(fs::file_size(region), sizeof(ip::RegionLayout));
  }
  // A capped program against the region: it runs to its end (exit 0), its allocation is refused
  // (fail closed), the refusal is one line naming `why`, and the file is left as it was.
  void expect_refused(const std::string& why, int timeout_ms = 30000) {
    const std::string before = slurp(region);
    const mode_t mode = mode_of(region);
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = run({"try", kMiB}, env({{"SLICELAB_MEMORY_LIMIT", "64m"}}), timeout_ms);
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_FALSE(r.timed_out) << r.out;
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
    EXPECT_EQ(count(r.out, "cannot use shared region " + region), 1u) << r.out;
    EXPECT_NE(r.out.find(why), std::string::npos) << r.out;
    EXPECT_EQ(slurp(region), before) << "the refused file was modified";
    EXPECT_EQ(mode_of(region), mode);
    EXPECT_LT(took, std::chrono::seconds(10));
    // An uncapped program is not held back by a region it cannot use.
    const Result u = run({"survive"}, env());
    EXPECT_EQ(u.exit_code, 0) << u.out;
    EXPECT_NE(u.out.find("survived"), std::string::npos) << u.out;
  }
  std::string dir, region;
};

TEST_F(Region, IsCreated0600WhateverTheUmask) {
  const mode_t old = umask(0);
  make_region();
  umask(old);
  EXPECT_EQ(mode_of(region), 0600u);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().string(), region) << "a temporary file was left behind";
}

TEST_F(Region, ASymbolicLinkIsRefusedAndItsTargetLeftAlone) {
  const std::string victim = dir + "/victim.txt";
  std::ofstream(victim) << "precious\n";
  chmod(victim.c_str(), 0644);
  ASSERT_EQ(symlink(victim.c_str(), region.c_str()), 0);
  expect_refused("symbolic link");
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(mode_of(victim), 0644u);
  // A dangling link: its target is not created either.
  unlink(region.c_str());
  const std::string absent = dir + "/absent";
  ASSERT_EQ(symlink(absent.c_str(), region.c_str()), 0);
  expect_refused("symbolic link");
  EXPECT_FALSE(fs::exists(absent));
}

TEST_F(Region, ARegionOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another uid";
  make_region();
  ASSERT_EQ(chown(region.c_str(), 65534, 65534), 0);  // nobody:nogroup
  expect_refused("belongs to uid 65534");
}

TEST_F(Region, ARegionOtherUsersMayOpenIsRefused) {
  make_region();
  ASSERT_EQ(chmod(region.c_str(), 0666), 0);  // what earlier versions made
  expect_refused("other users may open it (mode 0666)");
}

TEST_F(Region, ARegionInADirectoryAnyoneMayRewriteIsRefused) {
  make_region();
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  expect_refused("writable by every user without the sticky bit");
  ASSERT_EQ(chmod(dir.c_str(), 01777), 0);  // /tmp's way: allowed
  const Result r = run({"try", kMiB}, env({{"SLICELAB_MEMORY_LIMIT", "64m"}}));
  EXPECT_NE(r.out.find("result=0 "), std::string::npos) << r.out;
}

TEST_F(Region, ATruncatedRegionIsRefusedAndNotResized) {
  make_region();
  ASSERT_EQ(truncate(region.c_str(), 4096), 0);
  expect_refused("it is 4096 bytes");
  EXPECT_EQ(fs::file_size(region), 4096u);
  // Any other file of ours at that path likewise: never resized or rewritten.
  unlink(region.c_str());
  std::ofstream(region) << "notes\n";
  chmod(region.c_str(), 0600);
  expect_refused("it is 6 bytes");
}

struct Corruption {
  const char* name;
  size_t offset;
  uint64_t value;
  size_t width;  // 4 or 8 bytes
  const char* why;
};

// gtest names a failing case by this rather than by the struct's bytes.
void PrintTo(const Corruption& c, std::ostream* os) {
  *os << c.name;
}

class CorruptRegion : public Region, public ::testing::WithParamInterface<Corruption> {};

TEST_P(CorruptRegion, IsRefusedWithTheHostProgramStillRunning) {
  const Corruption c = GetParam();
  make_region();
  if (c.width == 4)
    poke(region, c.offset, static_cast<uint32_t>(c.value));
  else
    poke(region, c.offset, c.value);
  expect_refused(c.why);
}

constexpr size_t kSlot3 = offsetof(ip::RegionLayout, slots) + 3 * sizeof(ip::RegionSlot);
constexpr size_t kDevice2 = offsetof(ip::RegionLayout, devices) + 2 * sizeof(ip::RegionDevice);

INSTANTIATE_TEST_SUITE_P(
    Regions, CorruptRegion,
    ::testing::Values(
        Corruption{"magic", offsetof(ip::RegionLayout, magic), 0x1234, 8, "magic number"},
        Corruption{"version", offsetof(ip::RegionLayout, version), 2, 4, "version 2 region"},
        Corruption{"size", offsetof(ip::RegionLayout, total_size), 4096, 8,
                   "records a size of 4096"},
        Corruption{"slots", offsetof(ip::RegionLayout, slot_count), 100000, 4,
                   "records 100000 process slots"},
        Corruption{"slot_index", kSlot3 + offsetof(ip::RegionSlot, index), 9, 4,
                   "process slot 3 records index 9"},
        Corruption{"slot_pid", kSlot3 + offsetof(ip::RegionSlot, pid), 0xffffffffULL, 4,
                   "process slot 3 names pid -1"},
        Corruption{"free_slot_holds", kSlot3 + offsetof(ip::RegionSlot, committed), 1 << 20, 8,
                   "process slot 3 is free but holds memory"},
        // Zeroing the totals would let the container allocate its cap again.
        Corruption{"zeroed_totals",
                   offsetof(ip::RegionLayout, devices) + offsetof(ip::RegionDevice, committed), 0,
                   8, "device 0's totals are not the sums of its process slots"},
        Corruption{"totals", kDevice2 + offsetof(ip::RegionDevice, reserved), 77, 8,
                   "device 2's totals are not the sums"},
        Corruption{"sm_cap", kDevice2 + offsetof(ip::RegionDevice, sm_percent), 150, 4,
                   "compute cap for device 2, 150%"},
        Corruption{"lock_owner", offsetof(ip::RegionLayout, lock), ~uint64_t{0}, 8,
                   "its lock names pid 4294967295"}),
    [](const auto& p) { return std::string(p.param.name); });

TEST_F(Region, AForgedLockOwnerCannotHangAllocations) {
  make_region();
  // A live process that is not the container's and will never release the lock: this one.
  const auto me = static_cast<uint64_t>(getpid());
  poke(region, offsetof(ip::RegionLayout, lock), me << 32 | me);
  expect_refused("its lock has been held by live pid " + std::to_string(me) + " for over 2 s");
}

TEST_F(Region, ASiblingWithAHigherOrNoLimitCannotExceedTheContainersCap) {
  // The first process stores the container's cap, 64 MiB, and holds 40 of it.
  Child a = start({"hold", "41943040", "0"}, env({{"SLICELAB_MEMORY_LIMIT", "64m"}}));
  ASSERT_TRUE(wait_for(a, "held result=0")) << a.out;
  for (const Env& sibling :
       {Env{}, Env{{"SLICELAB_MEMORY_LIMIT", "1g"}}, Env{{"CUDA_DEVICE_MEMORY_LIMIT", "8g"}},
        Env{{"SLICELAB_MEMORY_LIMIT_0", "100g"}}}) {
    const Result b = run({"try", "31457280"}, env(sibling));  // 30 MiB: 70 > 64
    EXPECT_NE(b.out.find("result=2 used=41943040"), std::string::npos) << b.out;
  }
  // A sibling with a lower limit keeps it for itself: 20 MiB is over its own 16...
  Result b = run({"try", "20971520"}, env({{"SLICELAB_MEMORY_LIMIT", "16m"}}));
  EXPECT_NE(b.out.find("result=2 "), std::string::npos) << b.out;
  // ...while the container's cap stays 64 MiB for the others: 24 MiB fits exactly.
  b = run({"try", "25165824"}, env());
  EXPECT_NE(b.out.find("result=0 used=67108864"), std::string::npos) << b.out;
  kill9(a);
}

TEST_F(Region, ASiblingWithoutAComputeLimitIsPacedToTheContainersShare) {
  const Result first = run({"try", kMiB}, env({{"SLICELAB_SM_LIMIT", "30"}}));
  ASSERT_NE(first.out.find("result=0 "), std::string::npos) << first.out;
  const Result r =
      run({"share", "20000"},
          env({{"SLICELAB_FAKE_VIRTUAL_TIME", "1"}, {"SLICELAB_TEST_FAKE_CLOCK", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const size_t at = r.out.find("share=");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NEAR(std::strtod(r.out.c_str() + at + 6, nullptr), 0.30, 0.05) << r.out;
}

TEST_F(Region, DevicesBeyondTheTableAreCappedNotPassedThrough) {
  const std::string beyond = std::to_string(ip::kMaxDevices);  // the first ordinal past it
  Env e = env({{"SLICELAB_FAKE_DEVICES", "18"}, {"SLICELAB_MEMORY_LIMIT", "64m"}});
  Result r = run({"try_device", beyond, kMiB}, e);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("device=" + beyond + " result=2 create=2 free=0"), std::string::npos)
      << r.out;
  EXPECT_EQ(count(r.out, "device " + beyond + " is beyond the 16 devices"), 1u) << r.out;
  // The last device of the table is counted as usual.
  r = run({"try_device", "15", std::to_string(64 << 20)}, e);
  EXPECT_NE(r.out.find("device=15 result=0 create=2 free=0"), std::string::npos) << r.out;
  // A per-device variable beyond the table is not ignored: that device is refused, with a word.
  fs::remove(region);  // a new container: the first process's caps are the region's
  e = env({{"SLICELAB_FAKE_DEVICES", "18"}, {"CUDA_DEVICE_MEMORY_LIMIT_17", "1g"}});
  r = run({"try_device", "17", kMiB}, e);
  EXPECT_NE(r.out.find("device=17 result=2 create=2"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "CUDA_DEVICE_MEMORY_LIMIT_17: the interposer counts devices 0-15"), 1u)
      << r.out;
  // Without any cap there is nothing to hold: the device works.
  fs::remove(region);
  r = run({"try_device", beyond, kMiB}, env({{"SLICELAB_FAKE_DEVICES", "18"}}));
  EXPECT_NE(r.out.find("device=" + beyond + " result=0 create=0"), std::string::npos) << r.out;
}

TEST_F(Region, AnUnknownSlicelabNameIsWarnedAndATypoFailsClosed) {
  const std::string over = std::to_string((64 << 20) + 4096);
  Result r = run({"try", over},
                 env({{"SLICELAB_MEMROY_LIMIT", "1g"}, {"CUDA_DEVICE_MEMORY_LIMIT", "64m"}}));
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out,
                  "SLICELAB_MEMROY_LIMIT is not a variable slicelab's interposer knows "
                  "(did you mean SLICELAB_MEMORY_LIMIT?)"),
            1u)
      << r.out;
  // A bad value in our variable is not replaced by HAMi's (which may be more than meant): the
  // process fails closed, and nothing at all is allocated.
  fs::remove(region);
  r = run({"try", "4096"},
          env({{"SLICELAB_MEMORY_LIMIT", "64x"}, {"CUDA_DEVICE_MEMORY_LIMIT", "64m"}}));
  EXPECT_NE(r.out.find("result=2 used=0"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out,
                  "SLICELAB_MEMORY_LIMIT='64x': expected a byte count or a size such as 1Gi, "
                  "512Mi, 1.5Gi, 1G or HAMi-core's 1024m, 1g, found the suffix 'x'; failing "
                  "closed"),
            1u)
      << r.out;
  EXPECT_FALSE(fs::exists(region));
}

TEST_F(Region, AConfiguredGroupSharesTheRegionBetweenUids) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make files of other uids";
  const Env group = env({{"SLICELAB_REGION_GROUP", "65534"}, {"SLICELAB_MEMORY_LIMIT", "64m"}});
  const mode_t old = umask(077);  // the group's bits survive a strict umask
  Result r = run({"try", kMiB}, group);
  umask(old);
  ASSERT_NE(r.out.find("result=0 "), std::string::npos) << r.out;
  struct stat st {};
  ASSERT_EQ(stat(region.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_EQ(st.st_gid, 65534u);
  // Another uid of the container created it: accepted for the group, refused without it.
  ASSERT_EQ(chown(region.c_str(), 65534, 65534), 0);
  r = run({"try", kMiB}, group);
  EXPECT_NE(r.out.find("result=0 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cannot use shared region"), std::string::npos) << r.out;
  expect_refused("is not the configured region group");
}

}  // namespace
