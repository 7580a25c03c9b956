// The device plugin's GPU health: NvmlHealthMonitor on the fake NVML (XID events and lost GPUs
// written to its events file), and NVIDIA's XID rule with its environment overrides.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/nvml_health_monitor.h"
#include "backends/device_plugin/xid_filter.h"
#include "backends/local/gpu_detection.h"
#include "tests/support/temp_files.h"

namespace slicelab::device_plugin {
namespace {

using namespace std::chrono_literals;
const std::string kFakeNvmlLibrary = std::string(SLICELAB_FAKES) + "/libnvidia-ml.so.1";

class NvmlHealthTest : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    events_ = write("events", "");
    ::setenv("SLICELAB_FAKE_NVML_EVENTS", events_.c_str(), 1);
    ::setenv("SLICELAB_FAKE_DEVICES", "3", 1);
    ::unsetenv("SLICELAB_FAKE_MIG_INSTANCES");
  }
  void TearDown() override {
    ::unsetenv("SLICELAB_FAKE_NVML_EVENTS");
    ::unsetenv("SLICELAB_FAKE_DEVICES");
    ::unsetenv("SLICELAB_FAKE_MIG_INSTANCES");
    TempFilesTest::TearDown();
  }
  std::vector<DetectedGpu> gpus() const {
    const GpuDetection d = detect_gpus(kFakeNvmlLibrary);
    EXPECT_TRUE(d.ok()) << d.problem;
    return d.gpus;
  }
  NvmlHealthOptions options() {
    NvmlHealthOptions o;
    o.library = kFakeNvmlLibrary;
    o.wait_timeout = 100ms;
    o.log = [this](const std::string& line) {
      const std::lock_guard lock(log_mu_);
      log_ += line + "\n";
    };
    return o;
  }
  void append(const std::string& line) const {
    std::ofstream(events_, std::ios::app) << line << "\n";
  }
  // Waits (up to 3 s) until `done` holds, waking on every health change.
  bool wait_until(const std::function<bool()>& done) const {
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    uint64_t seen = health_.version();
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      seen = health_.wait_for_change(seen, 50ms);
    }
    return true;
  }
  std::string log() {
    const std::lock_guard lock(log_mu_);
    return log_;
  }

  std::string events_;
  DeviceHealth health_;
  std::mutex log_mu_;
  std::string log_;
};

TEST_F(NvmlHealthTest, CriticalXidMarksOnlyThatGpuAndWakesWaiters) {
  const std::vector<DetectedGpu> g = gpus();
  ASSERT_EQ(g.size(), 3u);
  NvmlHealthMonitor monitor(health_, g, options());
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  EXPECT_TRUE(monitor.active());
  const uint64_t before = health_.version();
  append("xid 1 79");
  EXPECT_NE(health_.wait_for_change(before, 3s), before);
  EXPECT_EQ(health_.reason("GPU-fake-0001"), "XID 79");
  EXPECT_FALSE(health_.healthy("GPU-fake-0001"));
  EXPECT_TRUE(health_.healthy("GPU-fake-0000"));
  EXPECT_TRUE(health_.healthy("GPU-fake-0002"));
}

TEST_F(NvmlHealthTest, ApplicationXidIsIgnored) {
  const std::vector<DetectedGpu> g = gpus();
  NvmlHealthMonitor monitor(health_, g, options());
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  // Events come in order: once GPU 1's XID 48 is seen, GPU 0's XID 13 was read before it.
  append("xid 0 13");
  append("xid 1 48");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0001"); }));
  EXPECT_EQ(health_.reason("GPU-fake-0001"), "XID 48");
  EXPECT_TRUE(health_.healthy("GPU-fake-0000"));
  EXPECT_NE(log().find("skipping XID 13"), std::string::npos) << log();
}

TEST_F(NvmlHealthTest, ExtraSkippedXidsComeFromTheOptions) {
  const std::vector<DetectedGpu> g = gpus();
  NvmlHealthOptions o = options();
  o.xids = XidFilter::parse("48, 94", "");
  NvmlHealthMonitor monitor(health_, g, o);
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  append("xid 0 48");
  append("xid 2 94");
  append("xid 1 79");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0001"); }));
  EXPECT_TRUE(health_.healthy("GPU-fake-0000"));
  EXPECT_TRUE(health_.healthy("GPU-fake-0002"));
}

TEST_F(NvmlHealthTest, DisabledHealthChecksLeaveEveryGpuHealthy) {
  const std::vector<DetectedGpu> g = gpus();
  for (const char* off : {"xids", "all"}) {
    NvmlHealthOptions o = options();
    o.xids = XidFilter::parse(off, "");
    NvmlHealthMonitor monitor(health_, g, o);
    EXPECT_FALSE(monitor.start()) << off;
    EXPECT_FALSE(monitor.active());
    EXPECT_NE(monitor.problem().find("disabled"), std::string::npos) << monitor.problem();
  }
  NvmlHealthOptions o = options();
  o.disabled = true;
  NvmlHealthMonitor monitor(health_, g, o);
  EXPECT_FALSE(monitor.start());
  append("xid 0 79");
  append("lost 1");
  EXPECT_EQ(health_.wait_for_change(0, 300ms), 0u);
  EXPECT_TRUE(health_.healthy("GPU-fake-0000"));
  EXPECT_TRUE(health_.healthy("GPU-fake-0001"));
}

TEST_F(NvmlHealthTest, LostGpuIsMarkedLost) {
  const std::vector<DetectedGpu> g = gpus();
  NvmlHealthMonitor monitor(health_, g, options());
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  append("lost 0");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0000"); }));
  EXPECT_EQ(health_.reason("GPU-fake-0000"), "lost");
  EXPECT_TRUE(health_.healthy("GPU-fake-0001"));
  EXPECT_TRUE(health_.healthy("GPU-fake-0002"));
}

TEST_F(NvmlHealthTest, GpuWithoutEventsIsStillPolledForLoss) {
  append("noevents 1");
  const std::vector<DetectedGpu> g = gpus();
  NvmlHealthMonitor monitor(health_, g, options());
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  EXPECT_NE(log().find("GPU 1 (GPU-fake-0001) does not report XID events"), std::string::npos)
      << log();
  append("xid 1 79");  // not registered: never delivered
  append("xid 0 79");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0000"); }));
  EXPECT_TRUE(health_.healthy("GPU-fake-0001"));
  append("lost 1");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0001"); }));
  EXPECT_EQ(health_.reason("GPU-fake-0001"), "lost");
}

TEST_F(NvmlHealthTest, MigXidMarksOnlyTheInstanceItNames) {
  ::setenv("SLICELAB_FAKE_MIG_INSTANCES", "2", 1);
  const std::vector<DetectedGpu> g = gpus();
  ASSERT_EQ(g[0].mig_instances.size(), 2u);
  NvmlHealthMonitor monitor(health_, g, options());
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  // The fake's slot 1 is GPU instance 2, compute instance 0.
  append("xid 0 79 2 0");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("MIG-fake-0-1"); }));
  EXPECT_EQ(health_.reason("MIG-fake-0-1"), "XID 79");
  EXPECT_TRUE(health_.healthy("MIG-fake-0-0"));
  EXPECT_TRUE(health_.healthy("GPU-fake-0000"));
  // No instance named: the whole GPU and every instance on it.
  append("xid 1 48");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0001"); }));
  EXPECT_EQ(health_.reason("MIG-fake-1-0"), "XID 48");
  EXPECT_EQ(health_.reason("MIG-fake-1-1"), "XID 48");
  EXPECT_TRUE(health_.healthy("MIG-fake-2-0"));
}

TEST_F(NvmlHealthTest, FailedWaitMarksEveryGpu) {
  const std::vector<DetectedGpu> g = gpus();
  NvmlHealthMonitor monitor(health_, g, options());
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  append("waitfail 999");
  ASSERT_TRUE(wait_until([&] { return !health_.healthy("GPU-fake-0002"); }));
  EXPECT_EQ(health_.reason("GPU-fake-0000"), "NVML error 999");
  EXPECT_EQ(health_.reason("GPU-fake-0001"), "NVML error 999");
}

TEST_F(NvmlHealthTest, StopReturnsWithinASecond) {
  const std::vector<DetectedGpu> g = gpus();
  NvmlHealthOptions o = options();
  o.wait_timeout = 500ms;
  NvmlHealthMonitor monitor(health_, g, o);
  ASSERT_TRUE(monitor.start()) << monitor.problem();
  std::this_thread::sleep_for(50ms);  // let the thread block in nvmlEventSetWait_v2
  const auto t0 = std::chrono::steady_clock::now();
  monitor.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_FALSE(monitor.active());
  monitor.stop();  // idempotent
}

TEST_F(NvmlHealthTest, MissingNvmlLeavesMonitorInactiveWithAReason) {
  std::vector<DetectedGpu> g(1);
  g[0].uuid = "GPU-fake-0000";
  NvmlHealthOptions o = options();
  o.library = "/nonexistent/libnvidia-ml.so.1";
  NvmlHealthMonitor monitor(health_, g, o);
  EXPECT_FALSE(monitor.start());
  EXPECT_FALSE(monitor.active());
  EXPECT_NE(monitor.problem().find("cannot open NVML /nonexistent/libnvidia-ml.so.1"),
            std::string::npos)
      << monitor.problem();
  EXPECT_NE(log().find("every GPU is reported healthy"), std::string::npos) << log();
  EXPECT_TRUE(health_.healthy("GPU-fake-0000"));
  EXPECT_EQ(health_.version(), 0u);
}

// NVIDIA's rule (internal/rm/health.go and its tests): application errors skipped, "all" or
// "xids" off, malformed entries ignored, enabled XIDs win.
TEST(XidFilterTest, FollowsNvidiaDevicePluginRule) {
  const XidFilter defaults;
  for (const uint64_t x : {13, 31, 43, 45, 68, 109}) EXPECT_TRUE(defaults.skipped(x)) << x;
  EXPECT_FALSE(defaults.skipped(79));
  EXPECT_FALSE(defaults.skipped(48));
  EXPECT_FALSE(defaults.all_disabled());
  EXPECT_EQ(defaults.describe(), "13,31,43,45,68,109");

  const XidFilter listed = XidFilter::parse("68,not-an-int, 48 ,-5,", "");
  EXPECT_TRUE(listed.skipped(48));
  EXPECT_FALSE(listed.skipped(5));
  EXPECT_FALSE(listed.all_disabled());

  EXPECT_TRUE(XidFilter::parse("XIDS", "").all_disabled());
  EXPECT_TRUE(XidFilter::parse("all", "").skipped(79));

  const XidFilter enabled = XidFilter::parse("11", "11,13");
  EXPECT_FALSE(enabled.skipped(11));
  EXPECT_FALSE(enabled.skipped(13));
  EXPECT_TRUE(enabled.skipped(31));

  const XidFilter everything = XidFilter::parse("all", "all");
  EXPECT_FALSE(everything.all_disabled());
  EXPECT_FALSE(everything.skipped(13));
  EXPECT_EQ(everything.describe(), "none");
}

TEST(XidFilterTest, ReadsNvidiaEnvironmentVariables) {
  ::setenv("DP_DISABLE_HEALTHCHECKS", "48,64", 1);
  ::setenv("DP_ENABLE_HEALTHCHECKS", "31", 1);
  const NvmlHealthOptions listed = nvml_health_options_from_environment();
  EXPECT_FALSE(listed.disabled);
  EXPECT_TRUE(listed.xids.skipped(48));
  EXPECT_TRUE(listed.xids.skipped(64));
  EXPECT_TRUE(listed.xids.skipped(13));
  EXPECT_FALSE(listed.xids.skipped(31));
  EXPECT_FALSE(listed.xids.skipped(79));
  ::setenv("DP_DISABLE_HEALTHCHECKS", "all", 1);
  ::unsetenv("DP_ENABLE_HEALTHCHECKS");
  EXPECT_TRUE(nvml_health_options_from_environment().disabled);
  ::unsetenv("DP_DISABLE_HEALTHCHECKS");
  EXPECT_FALSE(nvml_health_options_from_environment().disabled);
}

}  // namespace
}  // namespace slicelab::device_plugin
