// The ways a tenant got round its cap, each refused: unsetenv before the first CUDA call, a
// child started with `env -i`, a private region while a sibling holds memory, a Kubernetes
// spelling of the cap that read as no cap, an unreadable cap, and a region file truncated under
// a running process. Each test starts the test client with the fakes and the interposer
// preloaded. The caps file lies in the test's folder and SLICELAB_CAPS_FILE names it, standing in
// for the device plugin's read-only mount at /etc/slicelab/caps, as LD_PRELOAD and
// LD_LIBRARY_PATH stand in for /etc/ld.so.preload and the driver's folder.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backends/interposer/caps_file.h"
#include "tests/interposer/harness.h"

// Its own namespace: in a unity build the other interposer test files' names are in scope.
namespace cap_escape {
namespace {

using namespace slicelab::test;
namespace ip = slicelab::interposer;
namespace fs = std::filesystem;

constexpr uint64_t kMiB = uint64_t{1} << 20;
const std::string k40m = std::to_string(40 * kMiB);
const std::string k30m = std::to_string(30 * kMiB);
const std::string k24m = std::to_string(24 * kMiB);
const std::string k64m = std::to_string(64 * kMiB);

// Kills and reaps a started client that a failed assertion left running (finish() and kill9()
// reap it themselves: then there is nothing left to do).
struct Reaped {
  Child& child;
  explicit Reaped(Child& c) : child(c) {}
  Reaped(const Reaped&) = delete;
  Reaped& operator=(const Reaped&) = delete;
  ~Reaped() {
    if (child.pid > 0 && waitpid(child.pid, nullptr, WNOHANG) == 0) {
      kill(child.pid, SIGKILL);
      waitpid(child.pid, nullptr, 0);
    }
  }
};

class CapEscape : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/slicelab-escape-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    region = dir + "/region.cache";
    caps = dir + "/caps";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // The caps file the device plugin writes for a container capped at 64 MiB on device 0.
  void write_caps(uint64_t bytes = 64 * kMiB, const std::string& region_path = "") {
    ip::CapsFileContents c;
    c.devices = {ip::CapsFileDevice{bytes, 100}};
    c.region_path = region_path.empty() ? region : region_path;
    std::ofstream(caps) << ip::caps_file_text(c);
    ASSERT_EQ(chmod(caps.c_str(), 0444), 0);
  }
  // A process of the container: the file's location, and whatever environment it chose.
  Env contained(Env e = {}) const {
    e["SLICELAB_CAPS_FILE"] = caps;
    return e;
  }
  std::string dir, region, caps;
};

TEST_F(CapEscape, UnsetenvBeforeTheFirstCudaCallKeepsTheFilesCap) {
  write_caps();
  Result r = run({"unset_try", std::to_string(64 * kMiB + 1)},
                 contained({{"SLICELAB_MEMORY_LIMIT", "64Mi"}}));
  EXPECT_NE(r.out.find("unset "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  r = run({"unset_try", k64m}, contained());
  EXPECT_NE(r.out.find("result=0 used=" + k64m), std::string::npos) << r.out;
  // Without a file the environment is the cap, as the process started: unsetenv after that
  // changes nothing either (the environment is taken when the library loads).
  r = run({"unset_try", std::to_string(64 * kMiB + 1)},
          {{"SLICELAB_MEMORY_LIMIT", "64Mi"}, {"SLICELAB_SHARED_REGION", region}});
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
}

TEST_F(CapEscape, AChildStartedWithEnvMinusIKeepsTheFilesCap) {
  write_caps();
  // What survives `env -i` in a container is the file system: the preload file, the driver's
  // libraries and the caps mount (here the three variables that stand for them).
  const std::string loader = "LD_PRELOAD,LD_LIBRARY_PATH,ASAN_OPTIONS,TSAN_OPTIONS";
  Result r = run({"env_i", loader + ",SLICELAB_CAPS_FILE", "try", std::to_string(64 * kMiB + 1)},
                 contained({{"SLICELAB_MEMORY_LIMIT", "64Mi"}}));
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("child with "), std::string::npos) << r.out;
  r = run({"env_i", loader + ",SLICELAB_CAPS_FILE", "try", k64m}, contained());
  EXPECT_NE(r.out.find("result=0 used=" + k64m), std::string::npos) << r.out;
  // The check can fail: without the file, the same child has no cap at all (which is why the
  // caps are in the file and not in the environment).
  r = run({"env_i", loader, "try", std::to_string(64 * kMiB + 1)},
          {{"SLICELAB_MEMORY_LIMIT", "64Mi"}, {"SLICELAB_SHARED_REGION", region}});
  EXPECT_NE(r.out.find("result=0 "), std::string::npos) << r.out;
}

TEST_F(CapEscape, APrivateRegionWhileASiblingHoldsMemoryCannotPassTheCap) {
  write_caps();
  Child a = start({"hold", k40m, "0"}, contained());
  const Reaped reap_a{a};
  ASSERT_TRUE(wait_for(a, "held result=0")) << a.out;
  // Its own region, a higher cap, HAMi's names: the file's region and cap hold. 40 + 30 > 64.
  const std::string mine = dir + "/mine.region";
  for (const Env& e :
       {Env{{"SLICELAB_SHARED_REGION", mine}, {"SLICELAB_MEMORY_LIMIT", "1Gi"}},
        Env{{"CUDA_DEVICE_MEMORY_SHARED_CACHE", mine}, {"CUDA_DEVICE_MEMORY_LIMIT", "8g"}},
        Env{}}) {
    const Result b = run({"try", k30m}, contained(e));
    EXPECT_NE(b.out.find("result=2 used=" + k40m), std::string::npos) << b.out;
  }
  EXPECT_FALSE(fs::exists(mine)) << "a region the file does not name was used";
  // What is left fits exactly: the sum never passes the cap.
  Result b = run({"try", k24m}, contained({{"SLICELAB_SHARED_REGION", mine}}));
  EXPECT_NE(b.out.find("result=0 used=" + k64m), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("the caps and region come from " + caps +
                       "; the environment's (SLICELAB_*, CUDA_DEVICE_*) differ and are ignored"),
            std::string::npos)
      << b.out;
  kill9(a);
  // The check can fail: without the file, a private region is the process's own accounting.
  Child c = start({"hold", k40m, "0"},
                  {{"SLICELAB_MEMORY_LIMIT", "64Mi"}, {"SLICELAB_SHARED_REGION", region + "2"}});
  const Reaped reap_c{c};
  ASSERT_TRUE(wait_for(c, "held result=0")) << c.out;
  b = run({"try", k30m}, {{"SLICELAB_MEMORY_LIMIT", "64Mi"}, {"SLICELAB_SHARED_REGION", mine}});
  EXPECT_NE(b.out.find("result=0 "), std::string::npos) << b.out;
  kill9(c);
}

TEST_F(CapEscape, AKubernetesQuantityIsReadAndAGarbageCapFailsClosed) {
  // 1Gi used to read as no cap at all.
  Result r = run({"try", std::to_string((uint64_t{1} << 30) + 1)},
                 {{"SLICELAB_MEMORY_LIMIT", "1Gi"}, {"SLICELAB_SHARED_REGION", region}});
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  r = run({"try", std::to_string(uint64_t{1} << 30)},
          {{"SLICELAB_MEMORY_LIMIT", "1Gi"}, {"SLICELAB_SHARED_REGION", region + "2"}});
  EXPECT_NE(r.out.find("result=0 used=" + std::to_string(uint64_t{1} << 30)), std::string::npos)
      << r.out;
  // 1G is Kubernetes' 10^9 bytes.
  r = run({"try", "1000000001"},
          {{"CUDA_DEVICE_MEMORY_LIMIT", "1G"}, {"SLICELAB_SHARED_REGION", region + "3"}});
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  // A value that cannot be read: the program runs, every allocation is refused, no memory shown.
  r = run({"survive"}, {{"SLICELAB_MEMORY_LIMIT", "1Gx"}, {"SLICELAB_SHARED_REGION", region}});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("survived alloc=2 total=0"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out,
                  "slicelab-interposer: SLICELAB_MEMORY_LIMIT='1Gx': expected a byte "
                  "count or a size such as 1Gi, 512Mi, 1.5Gi, 1G or HAMi-core's 1024m, 1g, "
                  "found the suffix 'Gx'; failing closed: every GPU allocation is refused"),
            1u)
      << r.out;
  r = run({"try", "4096"}, {{"SLICELAB_MEMORY_LIMIT", "1Gx"}, {"SLICELAB_SHARED_REGION", region}});
  EXPECT_NE(r.out.find("result=2 used=0"), std::string::npos) << r.out;
  // In the caps file likewise, named by line and column.
  std::ofstream(caps) << "slicelab-interposer-caps 1\nSLICELAB_MEMORY_LIMIT_0=lots\n";
  r = run({"try", "4096"}, contained({{"SLICELAB_MEMORY_LIMIT", "64Mi"}}));
  EXPECT_NE(r.out.find("result=2 used=0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(caps + ":2:25: SLICELAB_MEMORY_LIMIT_0: expected"), std::string::npos)
      << r.out;
  // A caps file that is not a regular file (here a link to a good one) fails closed too.
  write_caps();
  const std::string link = dir + "/link";
  ASSERT_EQ(symlink(caps.c_str(), link.c_str()), 0);
  r = run({"try", "4096"}, {{"SLICELAB_CAPS_FILE", link}});
  EXPECT_NE(r.out.find("result=2 used=0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(link + ": expected a regular file, found a symbolic link"),
            std::string::npos)
      << r.out;
}

TEST_F(CapEscape, ARegionTruncatedUnderARunningProcessDoesNotKillIt) {
  write_caps();
  Child a = start({"hold_then_more", k40m}, contained());
  const Reaped reap{a};
  ASSERT_TRUE(wait_for(a, "held")) << a.out;
  ASSERT_EQ(truncate(region.c_str(), 0), 0);
  ASSERT_EQ(kill(a.pid, SIGUSR1), 0);
  const Result r = finish(a, 30000);
  EXPECT_EQ(r.exit_code, 0) << r.out;  // -1: killed (SIGBUS)
  // Allocations are refused from then on, the free and the launch work, no memory is shown.
  EXPECT_NE(r.out.find("after more=2 free=0 launch=0 free_bytes=0"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "slicelab-interposer: the shared region " + region +
                             " shrank under this process (truncated?); its accounting is lost"),
            1u)
      << r.out;
  // A process that starts later refuses the file as it is (and leaves it so).
  const Result b = run({"try", "4096"}, contained());
  EXPECT_NE(b.out.find("result=2 "), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("it is 0 bytes"), std::string::npos) << b.out;
  EXPECT_EQ(fs::file_size(region), 0u);
}

}  // namespace
}  // namespace cap_escape
