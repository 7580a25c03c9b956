// The test runner that applies an allocation as a container runtime would, and a whole GPU's
// allocation run through it: the fake driver's client gets exactly the devices it was given.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/device_plugin/fake_node.h"
#include "tests/support/container_runner.h"

namespace slicelab::device_plugin::testing {
namespace {

using slicelab::testing::container_environment;
using slicelab::testing::ContainerOptions;
using slicelab::testing::host_path_of;
using slicelab::testing::run_in_container;
using Strings = std::vector<std::string>;

ContainerOptions fake_driver_node() {
  ContainerOptions o;
  o.fakes_dir = SLICELAB_FAKES;
  o.node_env = {{"SLICELAB_FAKE_DEVICES", "2"}, {"SLICELAB_FAKE_DEVICE_MEM", "2147483648"}};
  o.timeout = std::chrono::seconds(60);
  return o;
}

class ContainerRunner : public FakeNodeTest {};

TEST_F(ContainerRunner, ResolvesContainerPathsThroughMounts) {
  const std::vector<Mount> mounts{{"/var/run/slicelab", "/host/regions/pod1", false},
                                  {"/var/run/slicelab/deep", "/host/deep", true},
                                  {"/usr/lib/x.so", "/opt/x.so", true}};
  EXPECT_EQ(host_path_of(mounts, "/var/run/slicelab/r.region"), "/host/regions/pod1/r.region");
  EXPECT_EQ(host_path_of(mounts, "/var/run/slicelab/deep/a"), "/host/deep/a");  // longest mount
  EXPECT_EQ(host_path_of(mounts, "/var/run/slicelabx/a"), "/var/run/slicelabx/a");
  EXPECT_EQ(host_path_of(mounts, "/usr/lib/x.so"), "/opt/x.so");
  ContainerAllocation a;
  a.mounts = mounts;
  a.envs = {{"SLICELAB_SHARED_REGION", "/var/run/slicelab/r.region"},
            {"SOME_LIST", "/usr/lib/x.so:relative:/elsewhere"}};
  const std::string preload = write("ld.so.preload", "/usr/lib/x.so\n");
  a.mounts.push_back(Mount{"/etc/ld.so.preload", preload, true});
  ContainerOptions o;
  o.fakes_dir = "/fakes";
  o.node_env = {{"SLICELAB_FAKE_DEVICES", "3"}};
  const auto env = container_environment(a, o);
  EXPECT_EQ(env.at("SLICELAB_SHARED_REGION"), "/host/regions/pod1/r.region");
  EXPECT_EQ(env.at("SOME_LIST"), "/opt/x.so:relative:/elsewhere");
  EXPECT_EQ(env.at("LD_PRELOAD"), "/opt/x.so");
  EXPECT_EQ(env.at("LD_LIBRARY_PATH"), "/fakes");
  EXPECT_EQ(env.at("SLICELAB_FAKE_DEVICES"), "3");
  EXPECT_EQ(env.count("SLICELAB_NVML_LIBRARY"), 0u);  // nothing of the test's own environment
}

TEST_F(ContainerRunner, PreloadFromAMountedLdSoPreloadCapsTheClient) {
  // The interposer named by a container path in the mounted ld.so.preload, its cap in the env.
  ContainerAllocation a;
  a.mounts.push_back(
      Mount{"/usr/local/lib/slicelab/libslicelab-interposer.so", SLICELAB_INTERPOSER, true});
  a.mounts.push_back(Mount{"/etc/ld.so.preload",
                           write("preload", "/usr/local/lib/slicelab/libslicelab-interposer.so\n"),
                           true});
  a.mounts.push_back(Mount{"/var/run/slicelab", dir_.string(), false});
  a.envs = {{"SLICELAB_MEMORY_LIMIT", "64m"},
            {"SLICELAB_SHARED_REGION", "/var/run/slicelab/pod.region"}};
  const auto capped =
      run_in_container(a, {SLICELAB_CLIENT, "try", "134217728"}, fake_driver_node());
  EXPECT_EQ(capped.exit_code, 0) << capped.output;
  EXPECT_NE(capped.output.find("result=2 "), std::string::npos) << capped.output;  // OOM
  EXPECT_TRUE(std::filesystem::exists(dir_ / "pod.region"));
  const auto fits = run_in_container(a, {SLICELAB_CLIENT, "try", "33554432"}, fake_driver_node());
  EXPECT_NE(fits.output.find("result=0 "), std::string::npos) << fits.output;
}

TEST_F(ContainerRunner, WholeGpuAllocationRunsTheFakeDriverClient) {
  auto r = only_resource("version: v1\n");
  const ContainerAllocation a = r->allocate(Strings{"GPU-fake-0001"});
  const auto client = run_in_container(a, {SLICELAB_CLIENT, "try", "1048576"}, fake_driver_node());
  EXPECT_FALSE(client.timed_out);
  EXPECT_EQ(client.exit_code, 0) << client.output;
  EXPECT_NE(client.output.find("result=0 "), std::string::npos) << client.output;
  const auto env = run_in_container(
      a, {"/bin/sh", "-c", "echo $NVIDIA_VISIBLE_DEVICES $CUDA_VISIBLE_DEVICES $CUDA_DEVICE_ORDER"},
      fake_driver_node());
  EXPECT_EQ(env.output, "GPU-fake-0001 GPU-fake-0001 PCI_BUS_ID\n");
}

TEST_F(ContainerRunner, ATimeoutEndsTheProgram) {
  ContainerOptions o = fake_driver_node();
  o.timeout = std::chrono::milliseconds(200);
  const auto r = run_in_container(ContainerAllocation{}, {"/bin/sleep", "30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
}

}  // namespace
}  // namespace slicelab::device_plugin::testing
