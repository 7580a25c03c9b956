// A node of fake GPUs for the device plugin's tests: the fake NVML (tests/fakes) found through
// SLICELAB_NVML_LIBRARY, SLICELAB_FAKE_* set in this process, detect_gpus as the plugin calls it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/node_resources.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/local/gpu_detection.h"
#include "tests/support/temp_files.h"

namespace slicelab::device_plugin::testing {

inline const std::string kFakeNvmlLibrary = std::string(SLICELAB_FAKES) + "/libnvidia-ml.so.1";

class FakeNodeTest : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    setenv("SLICELAB_NVML_LIBRARY", kFakeNvmlLibrary.c_str(), 1);
    setenv("SLICELAB_FAKE_DEVICES", "2", 1);
    setenv("SLICELAB_FAKE_DEVICE_MEM", "2147483648", 1);  // 2 GiB: 2048 MiB
    for (const char* v : {"SLICELAB_FAKE_MIG_INSTANCES", "SLICELAB_FAKE_MIG_STATE",
                          "SLICELAB_FAKE_MIG_MODE", "SLICELAB_FAKE_GPU_NAME"})
      unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : {"SLICELAB_FAKE_DEVICES", "SLICELAB_FAKE_DEVICE_MEM",
                          "SLICELAB_FAKE_MIG_STATE", "FAKE_MPS_LOG"})
      unsetenv(v);
    TempFilesTest::TearDown();
  }
  // The GPUs the plugin finds now (the fake's settings are read on every query).
  std::vector<DetectedGpu> detect() {
    const GpuDetection d = detect_gpus();
    EXPECT_TRUE(d.ok()) << d.problem;
    return d.gpus;
  }
  // MIG instances per GPU, as the fake reads them ("<gpu> 1g.10gb,1g.10gb" lines).
  void set_mig_state(const std::string& lines) {
    setenv("SLICELAB_FAKE_MIG_STATE", write("mig-state", lines).c_str(), 1);
  }
  std::vector<std::unique_ptr<ResourcePlugin>> resources(const std::string& config_text) {
    config_ = parse_node_plugin_config(config_text, "node.yaml");
    gpus_ = detect();
    return make_node_resources(config_, gpus_, health_, nullptr);
  }
  std::unique_ptr<ResourcePlugin> only_resource(const std::string& config_text) {
    auto r = resources(config_text);
    EXPECT_EQ(r.size(), 1u);
    return r.empty() ? nullptr : std::move(r.front());
  }

  NodePluginConfig config_;
  std::vector<DetectedGpu> gpus_;
  DeviceHealth health_;
};

inline std::vector<std::string> device_ids(const ResourcePlugin& r) {
  std::vector<std::string> ids;
  for (const AdvertisedDevice& d : r.devices()) ids.push_back(d.id);
  return ids;
}

inline std::vector<std::string> unhealthy_ids(const ResourcePlugin& r) {
  std::vector<std::string> ids;
  for (const AdvertisedDevice& d : r.devices())
    if (!d.healthy) ids.push_back(d.id);
  return ids;
}

inline std::string allocation_error(ResourcePlugin& r, const std::vector<std::string>& ids) {
  try {
    r.allocate(ids);
  } catch (const AllocationError& e) {
    return e.what();
  }
  return "allocated";
}

}  // namespace slicelab::device_plugin::testing
