// The shared region in this process (no CUDA): the pure image check on sound and corrupted
// images, the refusals of files that are not ours or not sound, the container's caps stored by
// its first process, and a lock that never waits forever.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/interposer/shared_region.h"

namespace slicelab::interposer {
namespace {

namespace fs = std::filesystem;

Config capped(uint64_t bytes) {
  Config c;
  for (auto& d : c.devices) d.memory_bytes = bytes;
  c.other.memory_bytes = bytes;
  return c;
}

// A fresh image as the first process writes it, and its bytes.
struct Image {
  std::unique_ptr<RegionLayout> r = std::make_unique<RegionLayout>();
  explicit Image(const Config& c = Config{}) { init_region_image(r.get(), c); }
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(r.get()); }
  std::string error(bool totals = true) {
    return region_image_error(bytes(), sizeof(RegionLayout), totals);
  }
};

TEST(RegionImage, AFreshImageIsSound) {
  Image img(capped(64 << 20));
  EXPECT_EQ(img.error(), "");
  EXPECT_EQ(img.r->devices[3].cap.load(), uint64_t{64} << 20);
  EXPECT_EQ(img.r->devices[3].sm_percent.load(), 100u);
}

TEST(RegionImage, AnyOtherSizeIsRefused) {
  Image img;
  for (size_t n : {size_t{0}, size_t{1}, size_t{4096}, sizeof(RegionLayout) - 1})
    EXPECT_NE(region_image_error(img.bytes(), n, true).find("a region is"), std::string::npos) << n;
  EXPECT_NE(region_image_error(nullptr, sizeof(RegionLayout), true), "");
}

TEST(RegionImage, EachCorruptionIsNamed) {
  struct Case {
    void (*corrupt)(RegionLayout&);
    const char* why;
  };
  const Case cases[] = {
      {[](RegionLayout& r) { r.magic ^= 1; }, "magic number"},
      {[](RegionLayout& r) { r.version = 7; }, "version 7 region"},
      {[](RegionLayout& r) { r.total_size = 1; }, "records a size of 1 bytes"},
      {[](RegionLayout& r) { r.device_count = 17; }, "records 17 devices"},
      {[](RegionLayout& r) { r.slot_count = 0; }, "records 0 process slots"},
      {[](RegionLayout& r) { r.other_sm_percent = 0; }, "further devices, 0%"},
      {[](RegionLayout& r) { r.other_cap = 0; }, "further devices is 0 bytes"},
      {[](RegionLayout& r) { r.lock.store(uint64_t{5} << 32); }, "lock names pid 5 thread 0"},
      {[](RegionLayout& r) { r.lock.store(uint64_t{0x7fffffff} << 32 | 1); },
       "lock names pid 2147483647"},
      {[](RegionLayout& r) { r.devices[4].cap.store(0); }, "device 4 is 0 bytes"},
      {[](RegionLayout& r) { r.devices[4].sm_percent.store(101); }, "device 4, 101%"},
      {[](RegionLayout& r) { r.slots[9].index = 8; }, "slot 9 records index 8"},
      {[](RegionLayout& r) { r.slots[9].pid.store(-7); }, "slot 9 names pid -7"},
      {[](RegionLayout& r) { r.slots[9].reserved[2].store(1); }, "slot 9 is free but holds"},
      {[](RegionLayout& r) {
         r.slots[1].pid.store(100);
         r.slots[2].pid.store(101);
         r.slots[1].committed[0].store(UINT64_MAX);
         r.slots[2].committed[0].store(2);
       },
       "held on device 0 overflows"},
      {[](RegionLayout& r) { r.devices[0].committed.store(1); }, "device 0's totals"},
  };
  for (const Case& c : cases) {
    Image img;
    c.corrupt(*img.r);
    EXPECT_NE(img.error().find(c.why), std::string::npos) << c.why << ": got " << img.error();
  }
}

TEST(RegionImage, TotalsAreComparedWithTheSlotsOnlyWhenAsked) {
  Image img;
  img.r->slots[3].pid.store(42);
  img.r->slots[3].committed[1].store(1000);
  EXPECT_EQ(img.error(false), "");  // another process may be half-way through an update
  EXPECT_NE(img.error(true), "");
  img.r->devices[1].committed.store(1000);
  EXPECT_EQ(img.error(true), "");
}

// ---- opening files ----

class RegionFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/slicelab-region-unit-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    path = dir + "/r";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
  std::unique_ptr<SharedRegion> open(const Config& c = capped(64 << 20)) {
    warning.clear();
    return SharedRegion::open(path, c, &warning);
  }
  std::string bytes() const {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";  // a FIFO would block
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Refused, with `why` in the one-line warning, the file untouched, and fail-closed caps.
  void expect_refused(const std::string& why) {
    const std::string before = bytes();
    auto r = open();
    EXPECT_TRUE(r->refused());
    EXPECT_FALSE(r->shared());
    EXPECT_NE(warning.find(why), std::string::npos) << warning;
    EXPECT_EQ(warning.find('\n'), std::string::npos);
    EXPECT_FALSE(r->reserve(0, 1)) << "a capped device must refuse (fail closed)";
    EXPECT_EQ(bytes(), before);
    Config uncapped;
    uncapped.devices[0].memory_bytes = 1 << 20;  // device 1 has no cap: nothing to hold
    auto u = SharedRegion::open(path, uncapped, &warning);
    EXPECT_FALSE(u->reserve(0, 1));
    EXPECT_TRUE(u->reserve(1, 1));
  }
  std::string dir, path, warning;
};

TEST_F(RegionFile, IsCreatedSoundAnd0600AndReopened) {
  const mode_t old = umask(0);
  auto a = open();
  umask(old);
  EXPECT_EQ(warning, "");
  EXPECT_TRUE(a->shared());
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(fs::file_size(path), sizeof(RegionLayout));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  EXPECT_TRUE(a->reserve(0, 1000));
  a->commit(0, 1000);
  auto b = open();
  EXPECT_EQ(warning, "");
  EXPECT_EQ(b->used(0), 1000u);
}

TEST_F(RegionFile, FilesThatAreNotOursOrNotSoundAreRefusedUntouched) {
  { auto made = open(); }
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  expect_refused("other users may open it (mode 0644)");
  ASSERT_EQ(chmod(path.c_str(), 0620), 0);
  expect_refused("may open it (mode 0620) and is not the configured region group");
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  if (geteuid() == 0) {
    ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
    expect_refused("belongs to uid 65534");
    ASSERT_EQ(chown(path.c_str(), 0, 0), 0);
  }
  ASSERT_EQ(truncate(path.c_str(), 100), 0);
  expect_refused("it is 100 bytes");
  fs::remove(path);
  const std::string target = dir + "/target";
  std::ofstream(target) << "x";
  ASSERT_EQ(symlink(target.c_str(), path.c_str()), 0);
  expect_refused("symbolic link");
  fs::remove(path);
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  expect_refused("not a regular file");  // and never opened: a FIFO would block
  fs::remove(path);
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  expect_refused("not a regular file");
  fs::remove(path);
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  auto r = open();
  EXPECT_TRUE(r->refused());
  EXPECT_NE(warning.find("without the sticky bit"), std::string::npos) << warning;
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(RegionFile, TheFirstProcessesCapsHoldForTheContainer) {
  auto first = open(capped(64 << 20));
  ASSERT_TRUE(first->reserve(0, 40 << 20));
  first->commit(0, 40 << 20);
  for (uint64_t own : {UINT64_MAX, uint64_t{1} << 30}) {
    auto sibling = open(capped(own));
    EXPECT_EQ(sibling->memory_cap(0), uint64_t{64} << 20);
    EXPECT_EQ(sibling->memory_cap(40), uint64_t{64} << 20);  // beyond the table too
    EXPECT_FALSE(sibling->reserve(0, 30 << 20));
  }
  // A lower limit holds for its own process; the container's stays.
  auto low = open(capped(16 << 20));
  EXPECT_EQ(low->memory_cap(0), uint64_t{16} << 20);
  EXPECT_FALSE(low->reserve(0, 20 << 20));
  EXPECT_TRUE(low->reserve(0, 16 << 20));
  EXPECT_FALSE(low->reserve(0, 1));
  EXPECT_FALSE(first->reserve(0, 9 << 20));
  EXPECT_TRUE(first->reserve(0, 8 << 20));
  // The compute share: the container's unless this process's own is lower.
  Config sm30 = capped(64 << 20);
  for (auto& d : sm30.devices) d.sm_percent = 30;
  fs::remove(path);
  auto a = open(sm30);
  EXPECT_EQ(open(Config{})->sm_percent(0), 30);
  Config sm10;
  sm10.devices[0].sm_percent = 10;
  EXPECT_EQ(open(sm10)->sm_percent(0), 10);
}

TEST_F(RegionFile, WithACapsFileTheFilesCapsHoldWhateverTheRegionSays) {
  // A region written with no caps at all (by a process without the file, or by hand).
  auto first = open(Config{});
  ASSERT_TRUE(first->reserve(0, 40 << 20));
  first->commit(0, 40 << 20);
  Config file = capped(64 << 20);
  file.caps_file = "/etc/slicelab/caps";
  auto a = open(file);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(a->memory_cap(0), uint64_t{64} << 20);
  // The container's total, not only this process's own, is held to the file's cap: 40 + 30 > 64.
  EXPECT_FALSE(a->reserve(0, 30 << 20));
  EXPECT_TRUE(a->reserve(0, 24 << 20));
  // Without the file the region's (absent) cap is the container's, and only this process's own
  // use is held: the same 30 MiB would pass.
  fs::remove(path);
  auto env_first = open(Config{});
  ASSERT_TRUE(env_first->reserve(0, 40 << 20));
  EXPECT_TRUE(open(capped(64 << 20))->reserve(0, 30 << 20));
}

TEST_F(RegionFile, AConfigurationThatFailedClosedOpensNoRegionAndRefusesEveryAllocation) {
  Config c;
  fail_closed_config(c, "SLICELAB_MEMORY_LIMIT='x': expected a size");
  auto r = open(c);
  EXPECT_EQ(warning, "");
  EXPECT_TRUE(r->refused());
  EXPECT_FALSE(r->shared());
  EXPECT_FALSE(fs::exists(path));
  for (int d : {0, 1, 15}) {
    EXPECT_FALSE(r->reserve(d, 1)) << d;
    EXPECT_EQ(r->memory_cap(d), 0u);
    EXPECT_EQ(r->sm_percent(d), kFailClosedPercent);
  }
  EXPECT_EQ(r->memory_cap(40), 0u);
}

TEST_F(RegionFile, AShrinkUnderTheMappingIsSurvivedAndRefusesFromThenOn) {
  // In a child, so that a SIGBUS the guard missed ends the child (the test fails) and not the
  // suite.
  EXPECT_EXIT(
      {
        auto a = open();
        if (!a->reserve(0, 4096)) _exit(10);
        a->commit(0, 4096);
        if (truncate(path.c_str(), 0) != 0) _exit(11);
        // Each of these touches the region: without the guard the first is a SIGBUS.
        const bool refused = !a->reserve(0, 4096);
        a->release(0, 4096);
        a->layout().slots[a->slot()].launches[0].fetch_add(1);
        _exit(refused && a->refused() && a->reserve(1, 4096) == false ? 0 : 12);
      },
      ::testing::ExitedWithCode(0),
      "slicelab-interposer: the shared region .*/r shrank under this process \\(truncated\\?\\); "
      "its accounting is lost: allocations on capped devices get CUDA_ERROR_OUT_OF_MEMORY");
  // Truncated and grown back to its size: no SIGBUS, but the bytes are gone: refused as well.
  fs::remove(path);
  EXPECT_EXIT(
      {
        auto a = open();
        if (truncate(path.c_str(), 0) != 0 ||
            truncate(path.c_str(), static_cast<off_t>(sizeof(RegionLayout))) != 0)
          _exit(11);
        _exit(!a->reserve(0, 4096) && a->refused() ? 0 : 12);
      },
      ::testing::ExitedWithCode(0), "the shared region was rewritten under this process");
  // A SIGBUS elsewhere is not ours: it goes to the handler installed before the guard's, which
  // is AddressSanitizer's in an ASan build (it reports and aborts) and else the default action.
  fs::remove(path);
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool kAsan = true;
#elif defined(__has_feature)
  constexpr bool kAsan = __has_feature(address_sanitizer);
#else
  constexpr bool kAsan = false;
#endif
  const auto raise_sigbus = [&] {
    auto a = open();
    raise(SIGBUS);
    _exit(0);
  };
  if (kAsan) {
    EXPECT_EXIT(
        raise_sigbus(), [](int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; },
        "AddressSanitizer: BUS");
  } else {
    EXPECT_EXIT(raise_sigbus(), ::testing::KilledBySignal(SIGBUS), "");
  }
}

TEST_F(RegionFile, AForgedLiveLockOwnerIsWaitedForABoundedTimeOnly) {
  auto a = open();
  // A live owner that never releases: another thread of this process, parked until the end.
  std::promise<pid_t> tid;
  std::promise<void> done;
  std::thread parked([&] {
    tid.set_value(static_cast<pid_t>(syscall(SYS_gettid)));
    done.get_future().wait();
  });
  const auto me = static_cast<uint64_t>(getpid());
  a->layout().lock.store(me << 32 | static_cast<uint64_t>(tid.get_future().get()));
  const auto t0 = std::chrono::steady_clock::now();
  auto b = open();
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(b->refused());
  EXPECT_NE(warning.find("held by live pid " + std::to_string(me)), std::string::npos) << warning;
  EXPECT_GE(waited, std::chrono::nanoseconds(kLockWaitNs));
  EXPECT_LT(waited, std::chrono::nanoseconds(kLockWaitNs) + std::chrono::seconds(5));
  // After opening, an allocation that meets it fails closed instead of hanging: one wait for
  // that holder, then refusals at once.
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_FALSE(a->reserve(0, 1));
  EXPECT_LT(std::chrono::steady_clock::now() - t1,
            std::chrono::nanoseconds(kLockWaitNs) + std::chrono::seconds(3));
  const auto t2 = std::chrono::steady_clock::now();
  EXPECT_FALSE(a->reserve(0, 1));
  EXPECT_LT(std::chrono::steady_clock::now() - t2, std::chrono::milliseconds(500));
  a->layout().lock.store(0);
  EXPECT_TRUE(a->reserve(0, 1));
  done.set_value();
  parked.join();
}

TEST_F(RegionFile, ADeadLockOwnersHalfDoneUpdateIsRepaired) {
  auto a = open();
  ASSERT_TRUE(a->reserve(0, 4096));
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  // The dead child held the lock and had changed a total but not yet its slot.
  a->layout().lock.store(static_cast<uint64_t>(child) << 32 | static_cast<uint64_t>(child));
  a->layout().devices[0].reserved.store(999);
  auto b = open();
  EXPECT_EQ(warning, "");
  EXPECT_FALSE(b->refused());
  EXPECT_EQ(b->used(0), 4096u);  // rebuilt from the slots
}

}  // namespace
}  // namespace slicelab::interposer
