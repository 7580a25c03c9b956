// Test doubles for the device plugin's gRPC layer: a ResourcePlugin over a few named GPUs whose
// health comes from a DeviceHealth, and a fixture with a short temporary plugin folder.
#pragma once

#include <grpc/grpc.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/plugin_runner.h"
#include "backends/device_plugin/resource_plugin.h"
#include "tests/support/fake_kubelet.h"

namespace slicelab::testing {

// GPU i sits on NUMA node i % 2, except GPU 0 whose node is unknown. Allocate answers every
// field of ContainerAllocation from the IDs, so a test can check each one arrives; the ID
// "GPU-throws" makes it throw a plain std::runtime_error, any other unknown ID AllocationError.
class StubGpuPlugin : public device_plugin::ResourcePlugin {
 public:
  StubGpuPlugin(const device_plugin::DeviceHealth& health, std::vector<std::string> ids,
                std::string resource = "nvidia.com/gpu", bool pre_start = false)
      : health_(health),
        ids_(std::move(ids)),
        resource_(std::move(resource)),
        pre_start_(pre_start) {}

  std::string resource_name() const override { return resource_; }

  std::vector<device_plugin::AdvertisedDevice> devices() const override {
    std::vector<device_plugin::AdvertisedDevice> out;
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      out.push_back({ids_[i], health_.healthy(ids_[i]), i == 0 ? -1 : static_cast<int>(i % 2)});
    }
    return out;
  }

  std::vector<std::string> preferred(
      const device_plugin::PreferredRequest& request) const override {
    if (!preferred_answer.empty()) return preferred_answer;
    std::vector<std::string> out = request.must_include;
    for (const auto& id : request.available) {
      if (static_cast<int>(out.size()) >= request.size) break;
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    }
    return out;
  }

  device_plugin::ContainerAllocation allocate(std::span<const std::string> device_ids) override {
    ++allocate_calls;
    if (device_ids.empty()) throw device_plugin::AllocationError("no devices requested");
    device_plugin::ContainerAllocation a;
    std::string joined;
    for (const auto& id : device_ids) {
      if (id == "GPU-throws") throw std::runtime_error("the driver fell over");
      const auto it = std::find(ids_.begin(), ids_.end(), id);
      if (it == ids_.end()) throw device_plugin::AllocationError("unknown device " + id);
      const auto index = std::to_string(it - ids_.begin());
      joined += (joined.empty() ? "" : ",") + id;
      a.devices.push_back({"/dev/nvidia" + index, "/dev/nvidia" + index, "rw"});
      a.cdi_devices.push_back("slicelab.io/gpu=" + id);
    }
    a.envs["NVIDIA_VISIBLE_DEVICES"] = joined;
    a.envs["SLICELAB_DEVICE_COUNT"] = std::to_string(device_ids.size());
    a.mounts.push_back({"/usr/lib/libslicelab-interposer.so", "/opt/slicelab/interposer.so", true});
    a.mounts.push_back({"/run/slicelab", "/run/slicelab/" + device_ids.front(), false});
    a.devices.push_back({"/dev/nvidiactl", "/dev/nvidiactl", "r"});
    a.annotations["slicelab.io/allocated"] = joined;
    return a;
  }

  std::vector<device_plugin::CdiDeviceEdits> cdi_devices() const override { return {}; }
  bool wants_pre_start() const override { return pre_start_; }
  void pre_start(std::span<const std::string> device_ids) override {
    pre_started += static_cast<int>(device_ids.size());
  }

  std::atomic<int> allocate_calls{0};
  std::atomic<int> pre_started{0};
  // When set, GetPreferredAllocation's answer whatever was asked (a plugin that errs).
  std::vector<std::string> preferred_answer;

 private:
  const device_plugin::DeviceHealth& health_;
  std::vector<std::string> ids_;
  std::string resource_;
  bool pre_start_;
};

// Polls `condition` until it holds or `timeout` passes.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// A plugin folder short enough for Unix socket paths (108 bytes), a fake kubelet and a runner
// with fast retries.
class DevicePluginGrpcFixture : public ::testing::Test {
 protected:
  // gRPC stays initialised for the whole process: its shutdown, when the last channel or server
  // goes, waits up to 10 s for connections a hostile client left behind.
  static void SetUpTestSuite() { [[maybe_unused]] static const bool once = (grpc_init(), true); }
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "sldp-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    runner_.reset();
    kubelet_.reset();
    std::filesystem::remove_all(dir_);
  }
  device_plugin::PluginRunnerOptions fast_options() const {
    device_plugin::PluginRunnerOptions options;
    options.plugin_dir = dir_;
    options.register_timeout = std::chrono::milliseconds(500);
    options.retry_initial = std::chrono::milliseconds(20);
    options.retry_max = std::chrono::milliseconds(200);
    return options;
  }
  void start_runner(std::vector<device_plugin::ResourcePlugin*> plugins) {
    runner_ = std::make_unique<device_plugin::PluginRunner>(plugins, health_, fast_options());
    runner_->start();
  }
  // The kubelet, the runner serving `plugin_`, and the kubelet's client of it once registered.
  std::shared_ptr<FakePluginClient> start_and_connect() {
    kubelet_ = std::make_unique<FakeKubelet>(dir_);
    start_runner({&plugin_});
    if (!kubelet_->wait_for_registrations(1, std::chrono::seconds(5))) return nullptr;
    return kubelet_->client("nvidia.com/gpu");
  }

  std::filesystem::path dir_;
  device_plugin::DeviceHealth health_;
  StubGpuPlugin plugin_{health_, {"GPU-a", "GPU-b", "GPU-c", "GPU-d"}};
  std::unique_ptr<FakeKubelet> kubelet_;
  std::unique_ptr<device_plugin::PluginRunner> runner_;
};

}  // namespace slicelab::testing
