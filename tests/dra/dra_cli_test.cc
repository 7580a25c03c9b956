// `slicelab run` with a DRA policy: claims.json holds each claim's status.allocation, checked
// field by field against a hand-worked case, and pods.csv says why a claim fits nowhere.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
  const auto r =
      run_program(SLICELAB_BINARY,
                  "run -q " + shell_quote(scenario) + " --out " + shell_quote(out.string()), dir_);
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

}  // namespace
}  // namespace slicelab
