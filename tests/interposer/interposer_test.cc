// Acceptance tests of the interposer: each starts the test client in a separate process with the
// fake driver on LD_LIBRARY_PATH and libslicelab-interposer.so in LD_PRELOAD.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/interposer/harness.h"

namespace {

using namespace slicelab::test;

class Interposer : public ::testing::Test {
 protected:
  void SetUp() override { region = fresh_region(); }
  void TearDown() override { unlink(region.c_str()); }
  Env env(Env e = {}) const {
    e["SLICELAB_SHARED_REGION"] = region;
    return e;
  }
  std::string region;
};

constexpr const char* k64m = "67108864";

TEST_F(Interposer, EveryAllocationPathHoldsTheCapAndIsCreditedOnFree) {
  const Result r = run({"paths"}, env({{"SLICELAB_MEMORY_LIMIT", k64m}}));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("paths ok"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "path "), 13u) << r.out;
}

TEST_F(Interposer, HooksAreReachedByDirectCallsDlsymAndEveryProcAddressVersion) {
  const Result r = run({"lookup"}, env({{"SLICELAB_MEMORY_LIMIT", k64m}}));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("lookup ok"), std::string::npos) << r.out;
}

TEST_F(Interposer, MemGetInfoDeviceTotalMemAndNvmlReportPerDeviceCaps) {
  // Device 1's cap comes from HAMi-core's per-device variable.
  const Result r = run({"meminfo"}, env({{"SLICELAB_MEMORY_LIMIT", k64m},
                                         {"SLICELAB_TEST_CAP_1", "33554432"},
                                         {"CUDA_DEVICE_MEMORY_LIMIT_1", "32m"}}));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("meminfo ok"), std::string::npos) << r.out;
}

TEST_F(Interposer, TwoProcessesOfOneContainerShareOneCap) {
  const Env e = env({{"SLICELAB_MEMORY_LIMIT", "64m"}});
  Child a = start({"hold", "41943040", "0"}, e);  // 40 MiB
  ASSERT_TRUE(wait_for(a, "held result=0")) << a.out;
  Result b = run({"try", "31457280"}, e);  // 30 MiB: 70 > 64
  EXPECT_NE(b.out.find("result=2 "), std::string::npos) << b.out;
  b = run({"try", "25165824"}, e);  // 24 MiB: exactly 64
  EXPECT_NE(b.out.find("result=0 used=67108864"), std::string::npos) << b.out;
  kill9(a);
  b = run({"try", k64m}, e);  // the dead holder's 40 MiB are reclaimed
  EXPECT_NE(b.out.find("result=0 used=67108864"), std::string::npos) << b.out;
}

TEST_F(Interposer, SigkillInTheMiddleOfAnAllocationLeaksNothing) {
  Env slow = env({{"SLICELAB_MEMORY_LIMIT", "64m"}, {"SLICELAB_FAKE_ALLOC_DELAY_MS", "60000"}});
  Child a = start({"hold", "41943040", "0"}, slow);
  // Inside the driver: the interposer has reserved A's bytes (waiting for "allocating", printed
  // before the call, let a fast B take the room first on a loaded machine).
  ASSERT_TRUE(wait_for(a, "inside the driver's allocation")) << a.out;
  const Env e = env({{"SLICELAB_MEMORY_LIMIT", "64m"}});
  // While A sits inside the driver its reservation counts: B is refused...
  Result b;
  for (int i = 0; i < 50; ++i) {
    b = run({"try", "31457280"}, e);
    if (b.out.find("result=2 ") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(b.out.find("result=2 used=41943040"), std::string::npos) << b.out;
  kill9(a);
  // ...and once A is killed there, its reservation is reclaimed.
  b = run({"try", k64m}, e, 20000);
  EXPECT_FALSE(b.timed_out);
  EXPECT_NE(b.out.find("result=0 used=67108864"), std::string::npos) << b.out;
}

TEST_F(Interposer, SigkillWhileHoldingTheRegionLockDoesNotDeadlock) {
  Child a = start({"hold", "1048576", "0"},
                  env({{"SLICELAB_MEMORY_LIMIT", "64m"}, {"SLICELAB_TEST_HANG_IN_LOCK", "1"}}));
  ASSERT_TRUE(wait_for(a, "holding the region lock")) << a.out;
  kill9(a);
  const Result b = run({"try", k64m}, env({{"SLICELAB_MEMORY_LIMIT", "64m"}}), 20000);
  EXPECT_FALSE(b.timed_out) << "deadlock: the lock of a killed process was never released";
  EXPECT_NE(b.out.find("result=0 used=67108864"), std::string::npos) << b.out;
}

TEST_F(Interposer, HamiEnvironmentContractAndPrecedence) {
  const std::string cap3000m = std::to_string(3000ULL << 20);
  Result r = run({"try", std::to_string((3000ULL << 20) + 1)},
                 env({{"CUDA_DEVICE_MEMORY_LIMIT", "3000m"}}));
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  r = run({"try", cap3000m}, env({{"CUDA_DEVICE_MEMORY_LIMIT_0", "3000m"}}));
  EXPECT_NE(r.out.find("result=0 used=" + cap3000m), std::string::npos) << r.out;
  // SLICELAB_* wins over HAMi's names.
  r = run({"try", std::to_string((1ULL << 30) + 1)},
          env({{"CUDA_DEVICE_MEMORY_LIMIT", "3000m"}, {"SLICELAB_MEMORY_LIMIT", "1g"}}));
  EXPECT_NE(r.out.find("result=2 "), std::string::npos) << r.out;
  // HAMi's shared-cache variable names the region when ours is absent (a new one: the region
  // above keeps the 3000m its first process stored).
  const std::string cache = fresh_region();
  Env hami{{"CUDA_DEVICE_MEMORY_LIMIT", "64m"}, {"CUDA_DEVICE_MEMORY_SHARED_CACHE", cache}};
  Child a = start({"hold", "41943040", "0"}, hami);
  ASSERT_TRUE(wait_for(a, "held result=0")) << a.out;
  r = run({"try", "31457280"}, hami);
  EXPECT_NE(r.out.find("result=2 used=41943040"), std::string::npos) << r.out;
  kill9(a);
  unlink(cache.c_str());
}

TEST_F(Interposer, NvmlReconciliationCountsMemoryTakenBehindItsBack) {
  // 40 MiB taken straight from the driver, then 30 MiB through the interposer under a 64 MiB cap.
  Env e = env({{"SLICELAB_MEMORY_LIMIT", "64m"}});
  Result r = run({"bypass", "41943040", "31457280"}, e);
  EXPECT_NE(r.out.find("result=0 used=31457280"), std::string::npos) << r.out;  // unseen
  e["SLICELAB_NVML_RECONCILE"] = "1";
  r = run({"bypass", "41943040", "31457280"}, e);
  EXPECT_NE(r.out.find("result=2 used=41943040"), std::string::npos) << r.out;  // counted
}

TEST_F(Interposer, BadConfigurationValuesAreSurvivedWithOneLineEach) {
  // Knobs that are no caps: one line each, and the program runs as usual.
  Result r = run({"survive"}, {{"SLICELAB_MEASURE_EVERY", "0"},
                               {"SLICELAB_NVML_RECONCILE", "yes"},
                               {"SLICELAB_SHARED_REGION", "/nonexistent/dir/region"}});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("survived alloc=0 total=17179869184"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "SLICELAB_MEASURE_EVERY='0'"), 1u) << r.out;
  EXPECT_EQ(count(r.out, "SLICELAB_NVML_RECONCILE='yes'"), 1u) << r.out;
  EXPECT_EQ(count(r.out, "cannot use shared region /nonexistent/dir/region"), 1u) << r.out;
  // Caps that cannot be read: the program still runs, but fails closed (never "no cap"), and
  // one line names every bad value.
  r = run({"survive"}, {{"CUDA_DEVICE_MEMORY_LIMIT", "lots"},
                        {"SLICELAB_SM_LIMIT_0", "150"},
                        {"SLICELAB_SHARED_REGION", region}});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("survived alloc=2 total=0"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "CUDA_DEVICE_MEMORY_LIMIT='lots'"), 1u) << r.out;
  EXPECT_EQ(count(r.out, "SLICELAB_SM_LIMIT_0='150'"), 1u) << r.out;
  EXPECT_EQ(count(r.out, "failing closed"), 1u) << r.out;
  EXPECT_EQ(access(region.c_str(), F_OK), -1) << "the container's region was touched";
}

TEST_F(Interposer, SixteenThreadsAllocateFreeAndLaunchConcurrently) {
  const Result r = run({"threads", "16", "300"},
                       env({{"SLICELAB_MEMORY_LIMIT", k64m}, {"SLICELAB_SM_LIMIT", "50"}}));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("threads done"), std::string::npos) << r.out;
}

struct ShareCase {
  int percent;
  int64_t kernel_ns;
};
class InterposerShare : public Interposer, public ::testing::WithParamInterface<ShareCase> {};

// On virtual time (the fake's clock drives both the device and the interposer's limiter), so
// the figure does not depend on how busy the test machine is.
TEST_P(InterposerShare, HoldsTheTenantWithinFivePoints) {
  const ShareCase c = GetParam();
  const Result r = run({"share", std::to_string(c.kernel_ns)},
                       env({{"SLICELAB_SM_LIMIT", std::to_string(c.percent)},
                            {"SLICELAB_FAKE_VIRTUAL_TIME", "1"},
                            {"SLICELAB_TEST_FAKE_CLOCK", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const size_t at = r.out.find("share=");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double share = std::strtod(r.out.c_str() + at + 6, nullptr);
  RecordProperty("share", std::to_string(share));
  EXPECT_NEAR(share, c.percent / 100.0, 0.05) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Caps, InterposerShare,
                         ::testing::Values(ShareCase{10, 20'000}, ShareCase{30, 20'000},
                                           ShareCase{50, 20'000}, ShareCase{90, 20'000},
                                           ShareCase{10, 2'000'000}, ShareCase{30, 2'000'000},
                                           ShareCase{50, 2'000'000}, ShareCase{90, 2'000'000}));

}  // namespace
