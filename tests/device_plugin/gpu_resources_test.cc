// Whole GPUs, time-slice replicas and MIG devices as ResourcePlugins on the fake NVML's GPUs:
// IDs, renames, Allocate's answer for each device-list strategy, the refusals, health.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "backends/device_plugin/pod_source.h"
#include "tests/device_plugin/fake_node.h"
#include "workloads/input_error.h"

namespace slicelab::device_plugin::testing {
namespace {

using Strings = std::vector<std::string>;
using Env = std::map<std::string, std::string>;

class WholeGpus : public FakeNodeTest {};

TEST_F(WholeGpus, AdvertisesEveryGpuByUuidAndAllocatesItsEnvironment) {
  auto r = only_resource("version: v1\n");
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(device_ids(*r), (Strings{"GPU-fake-0000", "GPU-fake-0001"}));
  const ContainerAllocation a = r->allocate(Strings{"GPU-fake-0001"});
  EXPECT_EQ(a.envs, (Env{{"NVIDIA_VISIBLE_DEVICES", "GPU-fake-0001"},
                         {"CUDA_VISIBLE_DEVICES", "GPU-fake-0001"},
                         {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
  EXPECT_TRUE(a.mounts.empty());
  EXPECT_TRUE(a.devices.empty());  // passDeviceSpecs is off
  EXPECT_TRUE(a.cdi_devices.empty());
  EXPECT_TRUE(a.annotations.empty());
  const ContainerAllocation both = r->allocate(Strings{"GPU-fake-0001", "GPU-fake-0000"});
  EXPECT_EQ(both.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0001,GPU-fake-0000");
  EXPECT_EQ(allocation_error(*r, {"GPU-fake-0007"}),
            "invalid allocation request for \"nvidia.com/gpu\": invalid request: unknown device: "
            "GPU-fake-0007");
}

TEST_F(WholeGpus, IndexIdsAndDeviceSpecs) {
  auto r =
      only_resource("flags:\n  plugin:\n    deviceIDStrategy: index\n    passDeviceSpecs: true\n");
  EXPECT_EQ(device_ids(*r), (Strings{"0", "1"}));
  const ContainerAllocation a = r->allocate(Strings{"1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "1");
  // CUDA's list stays a UUID: inside a container GPU 1 may be CUDA's device 0.
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0001");
  const auto gpu = std::find_if(a.devices.begin(), a.devices.end(), [](const DeviceNode& d) {
    return d.container_path == "/dev/nvidia1";
  });
  ASSERT_NE(gpu, a.devices.end());
  EXPECT_EQ(gpu->host_path, "/dev/nvidia1");
  EXPECT_EQ(gpu->permissions, "rw");
  EXPECT_EQ(std::count_if(a.devices.begin(), a.devices.end(),
                          [](const DeviceNode& d) { return d.container_path == "/dev/nvidia0"; }),
            0);
}

TEST_F(WholeGpus, VolumeMountsStrategy) {
  auto r = only_resource("flags: {plugin: {deviceListStrategy: volume-mounts}}\n");
  const ContainerAllocation a = r->allocate(Strings{"GPU-fake-0000"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "/var/run/nvidia-container-devices");
  ASSERT_EQ(a.mounts.size(), 1u);
  EXPECT_EQ(a.mounts[0].container_path, "/var/run/nvidia-container-devices/GPU-fake-0000");
  EXPECT_EQ(a.mounts[0].host_path, "/dev/null");
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0000");
}

TEST_F(WholeGpus, CdiStrategiesNameDevicesInsteadOfListingThem) {
  auto cri = only_resource("flags: {plugin: {deviceListStrategy: cdi-cri}}\n");
  const ContainerAllocation a = cri->allocate(Strings{"GPU-fake-0000", "GPU-fake-0001"});
  EXPECT_EQ(a.cdi_devices,
            (Strings{"slicelab.io/gpu=GPU-fake-0000", "slicelab.io/gpu=GPU-fake-0001"}));
  EXPECT_TRUE(a.envs.empty());
  EXPECT_TRUE(a.annotations.empty());
  auto ann = only_resource(
      "flags: {plugin: {deviceListStrategy: cdi-annotations, cdiAnnotationPrefix: x.io/}}\n"
      "slicelab: {cdiKind: example.com/gpu}\n");
  const ContainerAllocation b = ann->allocate(Strings{"GPU-fake-0001"});
  EXPECT_TRUE(b.cdi_devices.empty());
  EXPECT_TRUE(b.envs.empty());
  EXPECT_EQ(
      b.annotations,
      (Env{{"x.io/slicelab-device-plugin_1-nvidia.com-gpu", "example.com/gpu=GPU-fake-0001"}}));
  EXPECT_EQ(ann->allocate(Strings{"GPU-fake-0000"}).annotations.begin()->first,
            "x.io/slicelab-device-plugin_2-nvidia.com-gpu");
  // A long resource name is cut to the key's 63 characters, ending in a letter or digit.
  auto shared = only_resource(
      "flags: {plugin: {deviceListStrategy: cdi-annotations}}\nsharing:\n  timeSlicing:\n"
      "    resources:\n    - {name: gpu, replicas: 2, rename: shared-gpus-of-the-a100-xx.pool}\n");
  EXPECT_EQ(shared->allocate(Strings{"GPU-fake-0000::1"}).annotations.begin()->first,
            "cdi.k8s.io/slicelab-device-plugin_1-nvidia.com-shared-gpus-of-the-a100-xx");
  // With envvar beside a CDI strategy, both are given (NVIDIA does the same).
  auto mixed = only_resource("flags: {plugin: {deviceListStrategy: [envvar, cdi-cri]}}\n");
  const ContainerAllocation c = mixed->allocate(Strings{"GPU-fake-0001"});
  EXPECT_EQ(c.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0001");
  EXPECT_EQ(c.cdi_devices, (Strings{"slicelab.io/gpu=GPU-fake-0001"}));
}

TEST_F(WholeGpus, CdiDevicesAreTheAdvertisedOnesWithTheirNodes) {
  auto r = only_resource("version: v1\n");
  const std::vector<CdiDeviceEdits> cdi = r->cdi_devices();
  ASSERT_EQ(cdi.size(), 2u);
  EXPECT_EQ(cdi[0].name, "GPU-fake-0000");
  EXPECT_EQ(cdi[1].name, "GPU-fake-0001");
  const auto& nodes = cdi[1].edits.devices;
  EXPECT_NE(std::find_if(nodes.begin(), nodes.end(),
                         [](const DeviceNode& d) { return d.host_path == "/dev/nvidia1"; }),
            nodes.end());
}

TEST_F(WholeGpus, HealthFollowsTheGpu) {
  auto r = only_resource("version: v1\n");
  EXPECT_TRUE(unhealthy_ids(*r).empty());
  health_.mark_unhealthy("GPU-fake-0001", "XID 79");
  EXPECT_EQ(unhealthy_ids(*r), (Strings{"GPU-fake-0001"}));
  health_.mark_healthy("GPU-fake-0001");
  EXPECT_TRUE(unhealthy_ids(*r).empty());
}

class TimeSliceReplicas : public FakeNodeTest {};

TEST_F(TimeSliceReplicas, ReplicaIdsRenameAndDeduplicatedDeviceList) {
  auto r = only_resource(
      "sharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n"
      "    - {name: nvidia.com/gpu, replicas: 3}\n");
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu.shared");
  EXPECT_EQ(device_ids(*r), (Strings{"GPU-fake-0000::0", "GPU-fake-0000::1", "GPU-fake-0000::2",
                                     "GPU-fake-0001::0", "GPU-fake-0001::1", "GPU-fake-0001::2"}));
  // Two replicas of one GPU and one of the other: each GPU named once.
  const ContainerAllocation a =
      r->allocate(Strings{"GPU-fake-0000::2", "GPU-fake-0000::0", "GPU-fake-0001::1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0000,GPU-fake-0001");
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0000,GPU-fake-0001");
  EXPECT_TRUE(a.mounts.empty());  // no MPS
  health_.mark_unhealthy("GPU-fake-0000", "lost");
  EXPECT_EQ(unhealthy_ids(*r),
            (Strings{"GPU-fake-0000::0", "GPU-fake-0000::1", "GPU-fake-0000::2"}));
}

TEST_F(TimeSliceReplicas, FailRequestsGreaterThanOne) {
  auto r = only_resource(
      "sharing:\n  timeSlicing:\n    failRequestsGreaterThanOne: true\n    resources:\n"
      "    - {name: gpu, replicas: 2}\n");
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(allocation_error(*r, {"GPU-fake-0000::0", "GPU-fake-0001::1"}),
            "invalid allocation request for \"nvidia.com/gpu\": invalid request: maximum request "
            "size for shared resources is 1; found 2");
  EXPECT_EQ(r->allocate(Strings{"GPU-fake-0001::1"}).envs.at("NVIDIA_VISIBLE_DEVICES"),
            "GPU-fake-0001");
  EXPECT_EQ(allocation_error(*r, {"GPU-fake-0001"}),
            "invalid allocation request for \"nvidia.com/gpu\": invalid request: unknown device: "
            "GPU-fake-0001");
}

TEST_F(TimeSliceReplicas, ADeviceSubsetUnderItsOwnName) {
  auto rs = resources(
      "sharing:\n  timeSlicing:\n    resources:\n"
      "    - {name: gpu, replicas: 2, rename: gpu.small, devices: [\"1\"]}\n");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0]->resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(device_ids(*rs[0]), (Strings{"GPU-fake-0000"}));
  EXPECT_EQ(rs[1]->resource_name(), "nvidia.com/gpu.small");
  EXPECT_EQ(device_ids(*rs[1]), (Strings{"GPU-fake-0001::0", "GPU-fake-0001::1"}));
  EXPECT_EQ(slicelab::testing::message_of([&] {
              resources(
                  "sharing:\n  timeSlicing:\n    resources:\n"
                  "    - {name: gpu, replicas: 2, devices: [\"5\"]}\n");
            }),
            "sharing: nvidia.com/gpu lists device '5', which this node's nvidia.com/gpu lacks");
  // A resource this node lacks is skipped: one config serves nodes with and without MIG.
  auto plain = resources(
      "sharing:\n  timeSlicing:\n    resources:\n    - {name: mig-1g.10gb, replicas: 2}\n");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(device_ids(*plain[0]), (Strings{"GPU-fake-0000", "GPU-fake-0001"}));
}

TEST_F(TimeSliceReplicas, PreferredTakesReplicasOfTheLeastUsedGpu) {
  auto r =
      only_resource("sharing:\n  timeSlicing:\n    resources:\n    - {name: gpu, replicas: 3}\n");
  // GPU 0 has one replica in use (::0 is not available), GPU 1 none: the first pick is on
  // GPU 1, which then has one in use as GPU 0 has; the tie goes to the GPU this request
  // took fewer from, GPU 0.
  PreferredRequest req;
  req.available = {"GPU-fake-0000::1", "GPU-fake-0000::2", "GPU-fake-0001::0", "GPU-fake-0001::1",
                   "GPU-fake-0001::2"};
  req.size = 2;
  EXPECT_EQ(r->preferred(req), (Strings{"GPU-fake-0001::0", "GPU-fake-0000::1"}));
  req.must_include = {"GPU-fake-0000::2"};
  EXPECT_EQ(r->preferred(req), (Strings{"GPU-fake-0000::2", "GPU-fake-0001::0"}));
}

class MigDevices : public FakeNodeTest {};

TEST_F(MigDevices, SingleStrategyAdvertisesInstancesAsGpus) {
  set_mig_state("0 1g.10gb,1g.10gb\n1 1g.10gb\n");
  auto r = only_resource("flags: {migStrategy: single}\n");
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(device_ids(*r), (Strings{"MIG-fake-0-0", "MIG-fake-0-1", "MIG-fake-1-0"}));
  const ContainerAllocation a = r->allocate(Strings{"MIG-fake-0-1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "MIG-fake-0-1");
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "MIG-fake-0-1");
  health_.mark_unhealthy("MIG-fake-0-1", "XID 43");
  EXPECT_EQ(unhealthy_ids(*r), (Strings{"MIG-fake-0-1"}));
  health_.mark_unhealthy("GPU-fake-0001", "XID 79");
  EXPECT_EQ(unhealthy_ids(*r), (Strings{"MIG-fake-0-1", "MIG-fake-1-0"}));
  PreferredRequest req{{"MIG-fake-1-0", "MIG-fake-0-0"}, {}, 1};
  EXPECT_EQ(r->preferred(req), (Strings{"MIG-fake-0-0"}));  // the resource's order
}

TEST_F(MigDevices, SingleStrategyRefusesMixedProfiles) {
  set_mig_state("0 3g.40gb,1g.10gb\n1 1g.10gb\n");
  EXPECT_EQ(slicelab::testing::message_of([&] { resources("flags: {migStrategy: single}\n"); }),
            "migStrategy single: GPU 0 has a 1g.10gb instance beside 3g.40gb ones (mixed "
            "profiles); use migStrategy mixed");
}

TEST_F(MigDevices, MixedStrategyOneResourcePerProfile) {
  set_mig_state("0 3g.40gb,1g.10gb,1g.10gb\n");
  auto rs = resources("flags: {migStrategy: mixed, plugin: {deviceIDStrategy: index}}\n");
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0]->resource_name(), "nvidia.com/mig-3g.40gb");
  EXPECT_EQ(device_ids(*rs[0]), (Strings{"0:0"}));
  EXPECT_EQ(rs[1]->resource_name(), "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(device_ids(*rs[1]), (Strings{"0:1", "0:2"}));
  EXPECT_EQ(rs[2]->resource_name(), "nvidia.com/gpu");  // GPU 1 is not in MIG mode
  EXPECT_EQ(device_ids(*rs[2]), (Strings{"1"}));
  const ContainerAllocation a = rs[1]->allocate(Strings{"0:2"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "0:2");
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "MIG-fake-0-2");
}

TEST_F(MigDevices, TimeSlicedMigProfileAndNoMpsOnMig) {
  set_mig_state("0 1g.10gb,1g.10gb\n");
  auto rs = resources(
      "flags: {migStrategy: mixed}\nsharing:\n  timeSlicing:\n    resources:\n"
      "    - {name: mig-1g.10gb, replicas: 2}\n");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0]->resource_name(), "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(device_ids(*rs[0]),
            (Strings{"MIG-fake-0-0::0", "MIG-fake-0-0::1", "MIG-fake-0-1::0", "MIG-fake-0-1::1"}));
  EXPECT_EQ(rs[0]->allocate(Strings{"MIG-fake-0-1::1"}).envs.at("NVIDIA_VISIBLE_DEVICES"),
            "MIG-fake-0-1");
  // A MIG index "<gpu>:<instance>" in `devices` picks one instance.
  auto one = resources(
      "flags: {migStrategy: mixed}\nsharing:\n  timeSlicing:\n    resources:\n"
      "    - {name: mig-1g.10gb, replicas: 2, rename: mig-small, devices: [\"0:1\"]}\n");
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one[0]->resource_name(), "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(device_ids(*one[0]), (Strings{"MIG-fake-0-0"}));
  EXPECT_EQ(one[1]->resource_name(), "nvidia.com/mig-small");
  EXPECT_EQ(device_ids(*one[1]), (Strings{"MIG-fake-0-1::0", "MIG-fake-0-1::1"}));
  set_mig_state("0 3g.40gb,1g.10gb\n");
  EXPECT_EQ(slicelab::testing::message_of([&] {
              resources(
                  "flags: {migStrategy: mixed}\nsharing:\n  timeSlicing:\n    resources:\n"
                  "    - {name: mig-3g.40gb, replicas: 2, rename: mig-1g.10gb}\n");
            }),
            "sharing: nvidia.com/mig-1g.10gb would be advertised twice (a rename onto a resource "
            "the node has)");
  // The reader refuses MPS with a MIG strategy; a config built in code is refused here.
  NodePluginConfig c;
  c.mode = ShareMode::kMps;
  c.mig = MigStrategy::kMixed;
  c.replicated.push_back(ReplicatedResource{"nvidia.com/mig-1g.10gb", "", 2, {}});
  const auto gpus = detect();
  EXPECT_EQ(slicelab::testing::message_of([&] { make_node_resources(c, gpus, health_, nullptr); }),
            "nvidia.com/mig-1g.10gb: sharing using MPS is not supported for MIG devices");
}

// A 4-GPU node: NVLink pairs 0-1 and 2-3, SYS between the pairs.
constexpr const char* kPairsTopo =
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV4\tSYS\tSYS\t0-15\t0\n"
    "GPU1\tNV4\t X \tSYS\tSYS\t0-15\t0\n"
    "GPU2\tSYS\tSYS\t X \tNV4\t16-31\t1\n"
    "GPU3\tSYS\tSYS\tNV4\t X \t16-31\t1\n";

class PreferredWholeGpus : public FakeNodeTest {
 protected:
  void SetUp() override {
    FakeNodeTest::SetUp();
    setenv("SLICELAB_FAKE_DEVICES", "4", 1);
  }
  static std::string gpu(int i) { return "GPU-fake-000" + std::to_string(i); }
  static PreferredRequest request(std::vector<int> available, int size,
                                  std::vector<int> must = {}) {
    PreferredRequest r;
    for (int i : available) r.available.push_back(gpu(i));
    for (int i : must) r.must_include.push_back(gpu(i));
    r.size = size;
    return r;
  }
};

TEST_F(PreferredWholeGpus, PicksTheBestConnectedFreeGpus) {
  auto r = only_resource("slicelab: {topologyFile: " + write("topo.txt", kPairsTopo) + "}\n");
  // Both pairs score NV4: the lower indices win the tie.
  EXPECT_EQ(r->preferred(request({0, 1, 2, 3}, 2)), (Strings{gpu(0), gpu(1)}));
  // GPU 1 taken: the whole pair 2-3 beats 0 with either across SYS.
  EXPECT_EQ(r->preferred(request({0, 2, 3}, 2)), (Strings{gpu(2), gpu(3)}));
  // One GPU: the one least connected to the other free ones (0, whose partner is taken), so
  // that the pair 2-3 stays whole.
  EXPECT_EQ(r->preferred(request({0, 2, 3}, 1)), (Strings{gpu(0)}));
  // GPU 3 must be in: of 0, 1, 2 the least connected to the free others is 2 (SYS to both).
  EXPECT_EQ(r->preferred(request({0, 1, 2, 3}, 2, {3})), (Strings{gpu(3), gpu(2)}));
  EXPECT_EQ(r->preferred(request({0, 1, 2, 3}, 4)), (Strings{gpu(0), gpu(1), gpu(2), gpu(3)}));
}

TEST_F(PreferredWholeGpus, WithoutATopologyPacksByIndex) {
  auto r = only_resource("version: v1\n");
  EXPECT_EQ(r->preferred(request({3, 1, 2}, 2)), (Strings{gpu(1), gpu(2)}));
  EXPECT_EQ(r->preferred(request({3, 1, 2}, 2, {3})), (Strings{gpu(3), gpu(1)}));
  try {
    r->preferred(request({1}, 2));
    ADD_FAILURE() << "two GPUs preferred out of one";
  } catch (const AllocationError& e) {
    EXPECT_STREQ(e.what(),
                 "not enough available devices to satisfy allocation (want 2 more, 1 available)");
  }
}

TEST_F(PreferredWholeGpus, BuiltinTopologyByName) {
  // nvlink-pairs-4: pairs 0-1 and 2-3 as in the file above.
  auto r = only_resource("slicelab: {topologyFile: nvlink-pairs-4}\n");
  EXPECT_EQ(r->preferred(request({0, 2, 3}, 2)), (Strings{gpu(2), gpu(3)}));
}

}  // namespace
}  // namespace slicelab::device_plugin::testing

namespace slicelab::device_plugin::testing {
namespace {

// No pod is ever pending: enough to build the interposer resource and list its devices.
class NoPendingPods final : public PodSource {
 public:
  std::optional<PendingPod> pending_pod(std::string_view, int) override { return std::nullopt; }
  void mark_allocated(const PendingPod&) override {}
};

class InterposerMode : public FakeNodeTest {};

TEST_F(InterposerMode, NodeResourcesAreTheSharesAlone) {
  config_ = parse_node_plugin_config("slicelab:\n  interposer: {splitCount: 2}\n", "node.yaml");
  gpus_ = detect();
  EXPECT_THROW(make_node_resources(config_, gpus_, health_, nullptr), std::invalid_argument);
  NoPendingPods pods;
  const auto rs = make_node_resources(config_, gpus_, health_, &pods);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0]->resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(device_ids(*rs[0]),
            (std::vector<std::string>{"GPU-fake-0000::share-0", "GPU-fake-0000::share-1",
                                      "GPU-fake-0001::share-0", "GPU-fake-0001::share-1"}));
}

}  // namespace
}  // namespace slicelab::device_plugin::testing
