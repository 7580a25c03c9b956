// `slicelab run` with a DRA policy: claims.json holds each claim's status.allocation, checked
// field by field against a hand-worked case, and pods.csv says why a claim fits nowhere.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using slicelab::testing::read_file;
using slicelab::testing::run_program;
using slicelab::testing::shell_quote;

constexpr const char* kObjects = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.nvidia.com
spec:
  selectors:
  - cel:
      expression: "device.driver == 'gpu.nvidia.com'"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: h100
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel:
              expression: "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"
---
apiVersion: v1
kind: Pod
metadata:
  name: wants-h100
  namespace: default
spec:
  containers:
  - name: ctr
    image: ubuntu:22.04
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: h100
)";

std::string slice(const std::string& node) {
  std::string devices;
  for (int i = 0; i < 2; ++i) {
    devices += "  - name: gpu-" + std::to_string(i) + R"(
    attributes:
      productName: {string: "NVIDIA A100-SXM4-80GB"}
      uuid: {string: "GPU-)" +
               node + "-" + std::to_string(i) + R"("}
    capacity:
      memory: {value: 80Gi}
)";
  }
  return "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: " + node +
         "-gpu.nvidia.com\nspec:\n  driver: gpu.nvidia.com\n  nodeName: " + node +
         "\n  pool: {name: " + node + ", generation: 1, resourceSliceCount: 1}\n  devices:\n" +
         devices;
}

constexpr const char* kScenario = R"(name: dra-e2e
cluster:
  node_groups:
    - {name: node, count: 2, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 64000, memory_mib: 256Gi}
workload:
  pods:
    - {name: train, duration: 10m, gpu_count: 2, gpu_memory_mib: 40Gi}
    - {name: infer, duration: 10m, gpu_count: 1, gpu_memory_mib: 10Gi}
    - {name: wants-h100, duration: 10m, gpu_count: 1, gpu_memory_mib: 10Gi}
dra:
  files: [objects.yaml]
policies:
  - name: dra
    placement: first-fit
    sharing: {mode: dra, device_class: gpu.nvidia.com}
)";

class DraCli : public slicelab::testing::TempFilesTest {};

TEST_F(DraCli, RunWritesClaimsAndReasons) {
  write("objects.yaml", kObjects + slice("node-0") + slice("node-1"));
  const std::string scenario = write("dra.yaml", kScenario);
  const auto out = dir_ / "results";
  const auto r = run_program(
      SLICELAB_BINARY,
      "run --seeds 1 -q " + shell_quote(scenario) + " --out " + shell_quote(out.string()), dir_);
  ASSERT_EQ(r.status, 0) << r.err;

  // The hand-worked case: first-fit puts "train" on node-0, its claim takes that node's two
  // GPUs in slice order, and the node selector pins the claim to node-0.
  const auto claims = nlohmann::ordered_json::parse(read_file(out / "claims.json"));
  const auto& list = claims.at("policies").at(0).at("claims");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].dump(), nlohmann::ordered_json::parse(R"({
    "pod": "train", "namespace": "default", "name": "train-gpu", "node": "node-0",
    "allocated_s": 0.0,
    "status": {"allocation": {
      "devices": {"results": [
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-0", "device": "gpu-0"},
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-0", "device": "gpu-1"}]},
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-0"]}]}]}}}})")
                                .dump());
  EXPECT_EQ(list[1].at("pod"), "infer");
  EXPECT_EQ(list[1].at("node"), "node-1");
  EXPECT_EQ(list[1].at("status").at("allocation").at("devices").at("results").at(0).at("device"),
            "gpu-0");

  const std::string pods = read_file(out / "pods.csv");
  EXPECT_NE(pods.find("DRA: no node can allocate its claims (claim default/wants-h100-gpu: no "
                      "device left for request gpu on node node-0)"),
            std::string::npos)
      << pods;
}

TEST_F(DraCli, UnknownDeviceClassFailsAtLoad) {
  write("objects.yaml", kObjects + slice("node-0") + slice("node-1"));
  std::string text = kScenario;
  text.replace(text.find("device_class: gpu.nvidia.com"), 28, "device_class: gpu.example.com");
  const std::string scenario = write("dra.yaml", text);
  const auto r = run_program(SLICELAB_BINARY, "validate " + shell_quote(scenario), dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("policies[0].sharing.device_class"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no DeviceClass gpu.example.com"), std::string::npos) << r.err;
}

TEST_F(DraCli, SliceOfUnknownNodeFailsAtLoad) {
  write("objects.yaml", kObjects + slice("node-0") + slice("node-9"));
  const std::string scenario = write("dra.yaml", kScenario);
  const auto r = run_program(SLICELAB_BINARY, "validate " + shell_quote(scenario), dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("ResourceSlice node-9-gpu.nvidia.com: node node-9 is not in the cluster"),
            std::string::npos)
      << r.err;
}

// The adversarial matchAttribute case end to end: five pods whose claims each want 8 GPUs and a
// NIC on one PCIe root, on eight nodes whose 200 GPU devices (MIG-like, on 8 physical GPUs) and
// only NIC sit on different roots: every combination of 8 of the 200 fails at the NIC. The step
// bound (here at its ceiling) ends each attempt, the pods are reported as fitting nowhere, and
// the run ends promptly. Before a step counted the devices tried, this run took 16 s at this
// setting (4.4 s at the default) on a busy 2-core machine, and never ended with
// max_steps: 1000000000.
TEST_F(DraCli, AdversarialMatchAttributeRunIsBounded) {
  std::string objects = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: "device.attributes['gpu.nvidia.com'].type == 'gpu'"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic}
spec:
  selectors:
  - cel: {expression: "device.attributes['gpu.nvidia.com'].type == 'nic'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpus-and-nic, namespace: default}
spec:
  spec:
    devices:
      requests:
      - {name: g, exactly: {deviceClassName: gpu, count: 8}}
      - {name: n, exactly: {deviceClassName: nic}}
      constraints:
      - {requests: [g, n], matchAttribute: gpu.nvidia.com/pcieRoot}
)";
  for (int n = 0; n < 8; ++n) {
    const std::string node = "node-" + std::to_string(n);
    objects +=
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + node +
        "}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: " + node + "\n  pool: {name: " + node +
        ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
    for (int i = 0; i < 200; ++i)
      objects +=
          "  - {name: gpu-" + std::to_string(i) +
          ", attributes: {type: {string: gpu}, pcieRoot: {int: 1}, parentUUID: {string: " + node +
          "-" + std::to_string(i % 8) + "}}}\n";
    objects +=
        "  - {name: nic-0, attributes: {type: {string: nic}, pcieRoot: {int: 2}, "
        "parentUUID: {string: " +
        node + "-0}}}\n";
  }
  std::string pods = "workload:\n  pods:\n";
  for (int i = 0; i < 5; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    objects += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
               ", namespace: default}\nspec:\n  containers: [{name: c, image: x}]\n"
               "  resourceClaims: [{name: dev, resourceClaimTemplateName: gpus-and-nic}]\n";
    pods += "    - {name: " + name + ", duration: 10m, gpu_count: 8}\n";
  }
  write("objects.yaml", objects);
  const std::string scenario = write("adversarial.yaml", R"(name: adversarial
cluster:
  node_groups:
    - {name: node, count: 8, gpu_model: A100-80GB, gpus_per_node: 8, cpu_milli: 64000, memory_mib: 256Gi}
)" + pods + R"(policies:
  - name: dra
    placement: first-fit
    sharing: {mode: dra, files: [objects.yaml], max_steps: 1000000}
)");
  const auto out = dir_ / "results";
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_program(
      SLICELAB_BINARY,
      "run --seeds 1 -q " + shell_quote(scenario) + " --out " + shell_quote(out.string()), dir_);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = read_file(out / "pods.csv");
  EXPECT_NE(csv.find("search stopped after 1000000 steps on node node-0"), std::string::npos)
      << csv;
  // Eight attempts at the ceiling take about 0.1 s together (0.7 s on a busy machine, with the
  // process's start); the bound leaves room for a loaded one and fails the old step count.
  // Under ASan at -O0 the same run took 15 s on two loaded cores.
#ifdef SLICELAB_SANITIZED
  EXPECT_LT(seconds, 60.0);
#else
  EXPECT_LT(seconds, 5.0);
#endif
}

// The ceiling of max_steps, refused where the scenario asks for more.
TEST_F(DraCli, MaxStepsAboveTheCeilingRefusedAtItsKey) {
  write("objects.yaml", kObjects + slice("node-0") + slice("node-1"));
  std::string text = kScenario;
  text.replace(text.find("device_class: gpu.nvidia.com}"), 29,
               "device_class: gpu.nvidia.com, max_steps: 1000000000}");
  const std::string scenario = write("dra.yaml", text);
  const auto r = run_program(SLICELAB_BINARY, "validate " + shell_quote(scenario), dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find(scenario + ":15:67: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("policies[0].sharing.max_steps: expected an integer in 1..1000000, "
                       "found '1000000000'"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace slicelab
