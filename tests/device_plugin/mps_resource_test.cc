// MPS replicas: the resource's control daemon started through the fake nvidia-cuda-mps-control
// with NVIDIA's limits (100/replicas % threads, memory/replicas pinned per GPU), and the
// client's folders and mounts in Allocate's answer and in the CDI edits.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "backends/device_plugin/gpu_resource.h"
#include "tests/device_plugin/fake_node.h"
#include "tests/support/cli_run.h"

namespace slicelab::device_plugin::testing {
namespace {

using Strings = std::vector<std::string>;

class MpsReplicas : public FakeNodeTest {
 protected:
  void SetUp() override {
    FakeNodeTest::SetUp();
    log_ = (dir_ / "mps.log").string();
    setenv("FAKE_MPS_LOG", log_.c_str(), 1);
    root_ = (dir_ / "mps").string();
  }
  std::string config(const std::string& extra = "") const {
    return "sharing:\n  mps:\n" + extra +
           "    resources:\n    - {name: nvidia.com/gpu, replicas: 4}\n"
           "slicelab:\n  mpsRoot: " +
           root_ + "\n  mpsControl: " + SLICELAB_FAKE_MPS + "\n";
  }
  std::string log() const { return slicelab::testing::read_file(log_); }
  std::string log_, root_;
};

TEST_F(MpsReplicas, DaemonStartsOnFirstAllocateWithNvidiasLimits) {
  auto r = only_resource(config());
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(device_ids(*r).size(), 8u);
  EXPECT_EQ(log(), "");  // listing devices or writing CDI specs starts no daemon
  EXPECT_EQ(r->cdi_devices().size(), 8u);
  EXPECT_EQ(log(), "");
  const std::string pipe = root_ + "/nvidia.com/gpu/pipe";
  const std::string logs = root_ + "/nvidia.com/gpu/log";
  const ContainerAllocation a = r->allocate(Strings{"GPU-fake-0001::3"});
  // 2048 MiB GPUs and 4 replicas: 25 % of the threads and 512 MiB on each daemon device.
  EXPECT_EQ(log(), "start pipe=" + pipe + " log=" + logs +
                       " visible=GPU-fake-0000,GPU-fake-0001\n"
                       "cmd set_default_active_thread_percentage 25\n"
                       "cmd set_default_device_pinned_mem_limit 0 512M\n"
                       "cmd set_default_device_pinned_mem_limit 1 512M\n");
  EXPECT_EQ(a.envs.at("CUDA_MPS_PIPE_DIRECTORY"), pipe);
  EXPECT_EQ(a.envs.at("CUDA_MPS_LOG_DIRECTORY"), logs);
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0001");
  EXPECT_EQ(a.envs.count("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), 0u);  // the daemon holds limits
  ASSERT_EQ(a.mounts.size(), 3u);
  EXPECT_EQ(a.mounts[0].container_path, pipe);
  EXPECT_EQ(a.mounts[0].host_path, pipe);
  EXPECT_FALSE(a.mounts[0].read_only);
  EXPECT_EQ(a.mounts[1].host_path, logs);
  EXPECT_EQ(a.mounts[2].container_path, "/dev/shm");
  EXPECT_EQ(a.mounts[2].host_path, "/dev/shm");
  // One daemon per resource: a second container finds it running.
  r->allocate(Strings{"GPU-fake-0000::0"});
  const std::string after = log();
  EXPECT_EQ(std::count(after.begin(), after.end(), '\n'), 4);
  // MPS keeps one replica per container unless the config relaxes it.
  EXPECT_EQ(allocation_error(*r, {"GPU-fake-0000::0", "GPU-fake-0000::1"}),
            "invalid allocation request for \"nvidia.com/gpu\": invalid request: maximum request "
            "size for shared resources is 1; found 2");
  const auto* gpu = dynamic_cast<const GpuResource*>(r.get());
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(gpu->mps(), nullptr);
  EXPECT_TRUE(gpu->mps()->started());
  r.reset();  // the plugin stops: the daemon is told to quit, its folders stay for the mounts
  EXPECT_NE(log().find("cmd quit\n"), std::string::npos) << log();
  EXPECT_TRUE(std::filesystem::is_directory(pipe));
}

TEST_F(MpsReplicas, RelaxedRequestsAndCdiEdits) {
  auto r =
      only_resource(config("    failRequestsGreaterThanOne: false\n    renameByDefault: true\n"));
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu.shared");
  const ContainerAllocation a = r->allocate(Strings{"GPU-fake-0000::0", "GPU-fake-0000::1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0000");
  EXPECT_EQ(a.envs.at("CUDA_MPS_PIPE_DIRECTORY"), root_ + "/nvidia.com/gpu.shared/pipe");
  const std::vector<CdiDeviceEdits> cdi = r->cdi_devices();
  ASSERT_EQ(cdi.size(), 8u);
  EXPECT_EQ(cdi[5].name, "GPU-fake-0001::1");
  EXPECT_EQ(cdi[5].edits.envs.at("CUDA_MPS_PIPE_DIRECTORY"), root_ + "/nvidia.com/gpu.shared/pipe");
  EXPECT_EQ(cdi[5].edits.mounts.size(), 3u);
}

TEST_F(MpsReplicas, ADaemonThatCannotStartRefusesTheAllocation) {
  setenv("FAKE_MPS_FAIL_START", "1", 1);
  auto r = only_resource(config());
  const std::string e = allocation_error(*r, {"GPU-fake-0000::0"});
  unsetenv("FAKE_MPS_FAIL_START");
  EXPECT_NE(e.find("failed to get allocate response for \"nvidia.com/gpu\": MPS: '"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("cannot start"), std::string::npos) << e;
  // It is tried again on the next request.
  r->allocate(Strings{"GPU-fake-0000::0"});
  EXPECT_NE(log().find("start pipe="), std::string::npos);
}

}  // namespace
}  // namespace slicelab::device_plugin::testing
