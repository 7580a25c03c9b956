// Pins down the Kubernetes spellings of a pod's request: `cpu` and `memory` quantities, each
// `resources` name (flat, or under limits and requests), the conflicts between two spellings
// of one request, and node groups sized with `cpu` and `memory`.
#include "workloads/kube/kube_resources.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"
#include "workloads/hardware/mig_profiles.h"
#include "workloads/inputs/pod_yaml.h"

namespace slicelab {
namespace {

const YamlReader kPodFile("p.yaml");

// A pod from YAML text; "duration: 1" is added so that each test shows only what it is about.
PodSpec k8s_pod(const std::string& text) {
  const YAML::Node node = YAML::Load("duration: 1\n" + text);
  return read_pod(kPodFile, node, "pod", 0);
}

std::string k8s_pod_error(const std::string& text) {
  return testing::message_of([&] { k8s_pod(text); });
}

TEST(PodYamlKubernetes, CpuIsAQuantityOfCores) {
  EXPECT_EQ(k8s_pod("cpu: 4").cpu_milli, 4000);
  EXPECT_EQ(k8s_pod("cpu: 500m").cpu_milli, 500);
  EXPECT_EQ(k8s_pod("cpu: 0.25").cpu_milli, 250);
  // cpu: 128 is 128 cores; cpu_milli keeps its meaning, thousandths of a core.
  EXPECT_EQ(k8s_pod("cpu: 128").cpu_milli, 128000);
  EXPECT_EQ(k8s_pod("cpu_milli: 128").cpu_milli, 128);
}

TEST(PodYamlKubernetes, MemoryIsAQuantityOfBytes) {
  EXPECT_EQ(k8s_pod("memory: 16Gi").memory_mib, 16384);
  EXPECT_EQ(k8s_pod("memory: 10G").memory_mib, 9537);  // 10^10 / 2^20 = 9536.7, rounded up
  EXPECT_EQ(k8s_pod("memory: 1073741824").memory_mib, 1024);
  // memory_mib: a plain number stays MiB.
  EXPECT_EQ(k8s_pod("memory_mib: 1024").memory_mib, 1024);
  EXPECT_EQ(k8s_pod("memory_mib: 1Gi").memory_mib, 1024);
}

TEST(PodYamlKubernetes, TwoSpellingsOfOneRequestAreAnError) {
  EXPECT_EQ(k8s_pod_error("cpu_milli: 2000\ncpu: 2"),
            "p.yaml:3:6: pod.cpu: 'cpu' asks for what 'cpu_milli' already gives "
            "(pod.cpu_milli, line 2); keep one of them");
  EXPECT_EQ(k8s_pod_error("memory_mib: 10\nmemory: 10Mi"),
            "p.yaml:3:9: pod.memory: 'memory' asks for what 'memory_mib' already gives "
            "(pod.memory_mib, line 2); keep one of them");
  EXPECT_EQ(k8s_pod_error("gpu_count: 1\nresources: {nvidia.com/gpu: 1}"),
            "p.yaml:3:29: pod.resources.nvidia.com/gpu: 'nvidia.com/gpu' asks for what "
            "'gpu_count' already gives (pod.gpu_count, line 2); keep one of them");
  EXPECT_EQ(k8s_pod_error("gpu_count: 1\ngpu_milli: 500\nresources: {nvidia.com/gpucores: 50}"),
            "p.yaml:4:34: pod.resources.nvidia.com/gpucores: 'nvidia.com/gpucores' asks for what "
            "'gpu_milli' already gives (pod.gpu_milli, line 3); keep one of them");
  EXPECT_EQ(k8s_pod_error("cpu: 1\nresources: {cpu: 2}"),
            "p.yaml:3:18: pod.resources.cpu: 'cpu' asks for what 'cpu' already gives (pod.cpu, "
            "line 2); keep one of them");
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/gpu: 1, nvidia.com/mig-1g.10gb: 1}"),
            "p.yaml:2:56: pod.resources.nvidia.com/mig-1g.10gb: 'nvidia.com/mig-1g.10gb' asks "
            "for what 'nvidia.com/gpu' already gives (pod.resources.nvidia.com/gpu, line 2); "
            "keep one of them");
  EXPECT_EQ(k8s_pod_error("mig_profile: 1g.10gb\nresources: {nvidia.com/mig-1g.10gb: 1}"),
            "p.yaml:3:37: pod.resources.nvidia.com/mig-1g.10gb: 'nvidia.com/mig-1g.10gb' asks "
            "for what 'mig_profile' already gives (pod.mig_profile, line 2); keep one of them");
}

TEST(PodYamlKubernetes, ResourceCpuAndMemory) {
  const PodSpec p = k8s_pod("resources: {cpu: 4000m, memory: 8Gi}");
  EXPECT_EQ(p.cpu_milli, 4000);
  EXPECT_EQ(p.memory_mib, 8192);
  EXPECT_EQ(p.gpu_count, 0);
}

TEST(PodYamlKubernetes, ResourceGpuIsACount) {
  const PodSpec p = k8s_pod("resources: {nvidia.com/gpu: 2}");
  EXPECT_EQ(p.gpu_count, 2);
  EXPECT_EQ(p.gpu_milli, 1000);
  EXPECT_EQ(k8s_pod("resources: {nvidia.com/gpu.shared: 1}").gpu_count, 1);
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/gpu: 0.5}"),
            "p.yaml:2:29: pod.resources.nvidia.com/gpu: expected an integer in 0..64, found '0.5'");
}

TEST(PodYamlKubernetes, ResourceGpumemIsMebibytesOrAQuantity) {
  const PodSpec p = k8s_pod("resources: {nvidia.com/gpu: 1, nvidia.com/gpumem: 10240}");
  EXPECT_EQ(p.gpu_memory_mib, 10240);
  EXPECT_EQ(p.gpu_count, 1);
  EXPECT_EQ(k8s_pod("resources: {nvidia.com/gpu: 1, nvidia.com/gpumem: 10Gi}").gpu_memory_mib,
            10240);
  EXPECT_EQ(k8s_pod("resources: {nvidia.com/gpu: 1, nvidia.com/gpumem: 3G}").gpu_memory_mib,
            2862);  // 3e9 / 2^20 = 2861.02, rounded up
  // HAMi gives a container with gpumem and no nvidia.com/gpu one GPU (defaultGPUNum: 1).
  EXPECT_EQ(k8s_pod("resources: {nvidia.com/gpumem: 4000}").gpu_count, 1);
}

TEST(PodYamlKubernetes, ResourceGpumemPercentage) {
  const PodSpec p = k8s_pod("resources: {nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 25}");
  EXPECT_EQ(p.gpu_memory_percent, 25);
  EXPECT_EQ(p.gpu_memory_mib, 0);
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 101}"),
            "p.yaml:2:62: pod.resources.nvidia.com/gpumem-percentage: expected an integer in "
            "1..100, found '101'");
  EXPECT_EQ(
      k8s_pod_error("resources: {nvidia.com/gpumem: 100, nvidia.com/gpumem-percentage: 10}"),
      "p.yaml:2:67: pod.resources.nvidia.com/gpumem-percentage: give either 'nvidia.com/gpumem' "
      "or 'nvidia.com/gpumem-percentage', not both (pod.resources.nvidia.com/gpumem, line 2)");
}

TEST(PodYamlKubernetes, ResourceGpucoresIsPercentOfEachGpu) {
  const PodSpec p = k8s_pod("resources: {nvidia.com/gpu: 1, nvidia.com/gpucores: 30}");
  EXPECT_EQ(p.gpu_milli, 300);
  EXPECT_EQ(k8s_pod("resources: {nvidia.com/gpucores: 100}").gpu_milli, 1000);
  EXPECT_EQ(k8s_pod("resources: {nvidia.com/gpu: 2, nvidia.com/gpucores: 100}").gpu_count, 2);
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/gpu: 2, nvidia.com/gpucores: 50}"),
            "p.yaml:2:53: pod.resources.nvidia.com/gpucores: a GPU share below 1000 is only for "
            "one-GPU pods, this pod asks for 2 GPUs");
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/gpu: 0, nvidia.com/gpucores: 50}"),
            "p.yaml:2:53: pod.resources.nvidia.com/gpucores: a GPU share needs nvidia.com/gpu "
            "of 1");
}

TEST(PodYamlKubernetes, ResourceMigProfile) {
  const PodSpec p = k8s_pod("resources: {nvidia.com/mig-1g.10gb: 1}");
  EXPECT_EQ(std::string(p.mig_profile), "1g.10gb");
  EXPECT_EQ(p.gpu_count, 1);
  // The device plugin writes '+' as '.': nvidia.com/mig-1g.10gb.me is 1g.10gb+me.
  EXPECT_EQ(std::string(k8s_pod("resources: {nvidia.com/mig-1g.10gb.me: 1}").mig_profile),
            "1g.10gb+me");
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/mig-1g.10gb: 2}"),
            "p.yaml:2:37: pod.resources.nvidia.com/mig-1g.10gb: a pod runs on one MIG instance: "
            "ask for 1, found 2");
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/mig-1g.11gb: 1}"),
            "p.yaml:2:13: pod.resources.nvidia.com/mig-1g.11gb: unknown MIG profile '1g.11gb' in "
            "resource 'nvidia.com/mig-1g.11gb' (known: " +
                known_mig_profile_names() + ")");
}

TEST(PodYamlKubernetes, UnknownResourceNamesGetTheClosestName) {
  const std::string known =
      " (known: cpu, memory, nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpumem-percentage, "
      "nvidia.com/gpucores, nvidia.com/mig-<profile>)";
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/gpu-mem: 1000}"),
            "p.yaml:2:13: pod.resources.nvidia.com/gpu-mem: unknown resource "
            "'nvidia.com/gpu-mem' (did you mean 'nvidia.com/gpumem'?)" +
                known);
  EXPECT_EQ(k8s_pod_error("resources: {gpu: 1}"),
            "p.yaml:2:13: pod.resources.gpu: unknown resource 'gpu' (did you mean "
            "'nvidia.com/gpu'?)" +
                known);
  EXPECT_EQ(k8s_pod_error("resources: {nvidia.com/mig1g.10gb: 1}"),
            "p.yaml:2:13: pod.resources.nvidia.com/mig1g.10gb: unknown resource "
            "'nvidia.com/mig1g.10gb' (did you mean 'nvidia.com/mig-1g.10gb'?)" +
                known);
  EXPECT_EQ(k8s_pod_error("resources: {amd.com/gpu: 1}"),
            "p.yaml:2:13: pod.resources.amd.com/gpu: unknown resource 'amd.com/gpu'" + known);
  // What slicelab does not model but a pasted spec carries is accepted and ignored.
  EXPECT_EQ(k8s_pod("resources: {ephemeral-storage: 10Gi, hugepages-2Mi: 1Gi}").memory_mib, 0);
}

TEST(PodYamlKubernetes, LimitsAndRequestsAsAContainerHasThem) {
  const PodSpec p = k8s_pod(R"(resources:
  limits: {cpu: 8, memory: 32Gi, nvidia.com/gpu: 1, nvidia.com/gpumem: 20000}
  requests: {cpu: 2, memory: 16Gi}
)");
  EXPECT_EQ(p.cpu_milli, 2000);  // the scheduler places by the request
  EXPECT_EQ(p.memory_mib, 16384);
  EXPECT_EQ(p.gpu_count, 1);  // extended resources from limits
  EXPECT_EQ(p.gpu_memory_mib, 20000);
  // A limit alone is the request too; an extended resource in requests alone is read there.
  const PodSpec q = k8s_pod("resources: {limits: {cpu: 3}, requests: {nvidia.com/gpu: 2}}");
  EXPECT_EQ(q.cpu_milli, 3000);
  EXPECT_EQ(q.gpu_count, 2);
  EXPECT_EQ(k8s_pod_error("resources: {limits: {nvidia.com/gpu: 1}, requests: {nvidia.com/gpu: "
                          "2}}"),
            "p.yaml:2:69: pod.resources.requests.nvidia.com/gpu: 'nvidia.com/gpu' is 2 in "
            "requests and 1 in limits; Kubernetes requires an extended resource's request to "
            "equal its limit");
  EXPECT_EQ(k8s_pod_error("resources: {limits: {cpu: 1}, requests: {cpu: 1500m}}"),
            "p.yaml:2:47: pod.resources.requests.cpu: the request (1500m) is more than the limit "
            "(1)");
  EXPECT_EQ(k8s_pod_error("resources: {limits: {cpu: 1}, cpu: 2}"),
            "p.yaml:2:31: pod.resources: unknown key 'cpu'");
}

TEST(PodYamlKubernetes, ReusableOnAnyNode) {
  // import kubernetes reads a container's resources from kubectl's JSON with the same code.
  const YAML::Node from_json = YAML::Load(
      R"({"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpucores": "40"}, "requests": {"cpu": )"
      R"("250m", "memory": "512Mi"}})");
  PodResourceRequest r;
  read_kubernetes_resources(kPodFile, from_json, "items[0].spec.containers[0].resources", r);
  PodSpec p;
  apply_resource_request(kPodFile, r, p);
  EXPECT_EQ(p.gpu_count, 1);
  EXPECT_EQ(p.gpu_milli, 400);
  EXPECT_EQ(p.cpu_milli, 250);
  EXPECT_EQ(p.memory_mib, 512);
  EXPECT_EQ(r.gpu_milli.path, "items[0].spec.containers[0].resources.limits.nvidia.com/gpucores");
}

using NodeQuantities = testing::TempFilesTest;

TEST_F(NodeQuantities, NodeGroupsTakeCpuAndMemoryQuantities) {
  const Scenario sc = load_scenario(write("s.yaml", R"(cluster:
  node_groups:
    - {name: a, count: 1, gpu_model: T4, gpus_per_node: 1, cpu: 64, memory: 512Gi}
    - {name: b, count: 1, cpu: 1500m, memory: 1000000000}
    - {name: c, count: 1, cpu_milli: 2000, memory_mib: 10G}
workload:
  pods:
    - {duration: 1h30m, resources: {nvidia.com/gpu: 1, cpu: 2, memory: 1Gi}}
policies:
  - placement: best-fit
)"));
  ASSERT_EQ(sc.cluster.groups.size(), 3U);
  EXPECT_EQ(sc.cluster.groups[0].cpu_milli, 64000);
  EXPECT_EQ(sc.cluster.groups[0].memory_mib, 524288);
  EXPECT_EQ(sc.cluster.groups[1].cpu_milli, 1500);
  EXPECT_EQ(sc.cluster.groups[1].memory_mib, 954);  // 10^9 / 2^20 = 953.67
  EXPECT_EQ(sc.cluster.groups[2].memory_mib, 9537);
  ASSERT_EQ(sc.pods.size(), 1U);
  EXPECT_DOUBLE_EQ(sc.pods[0].duration_s, 5400.0);
  EXPECT_EQ(sc.pods[0].cpu_milli, 2000);

  const std::string both = write("b.yaml", R"(cluster:
  node_groups:
    - {count: 1, cpu_milli: 1000, cpu: 1, memory: 1Gi}
workload:
  pods: [{duration: 1}]
policies: [{placement: best-fit}]
)");
  EXPECT_EQ(testing::message_of([&] { load_scenario(both); }),
            both +
                ":3:40: cluster.node_groups[0].cpu: 'cpu' asks for what 'cpu_milli' already "
                "gives (line 3); keep one of them");
  const std::string none = write("n.yaml", R"(cluster:
  node_groups:
    - {count: 1, cpu: 1}
workload:
  pods: [{duration: 1}]
policies: [{placement: best-fit}]
)");
  EXPECT_EQ(testing::message_of([&] { load_scenario(none); }),
            none +
                ":3:7: cluster.node_groups[0]: missing required key 'memory_mib' (or "
                "'memory')");
  const std::string typo = write("t.yaml", R"(cluster:
  node_groups:
    - {count: 1, cpu: 4cpu, memory: 1Gi}
workload:
  pods: [{duration: 1}]
policies: [{placement: best-fit}]
)");
  EXPECT_EQ(testing::message_of([&] { load_scenario(typo); }),
            typo +
                ":3:23: cluster.node_groups[0].cpu: expected a CPU quantity in cores (e.g. 4, "
                "0.5, 500m), found '4cpu': unknown unit 'cpu' in '4cpu' (units: Ki Mi Gi Ti "
                "Pi Ei, n u m k M G T P E, or an exponent such as e9)");
}

TEST_F(NodeQuantities, GeneratorShapesAndEngineTimesSpeakKubernetesAndGo) {
  const Scenario sc = load_scenario(write("g.yaml", R"(cluster:
  node_groups:
    - {count: 2, gpu_model: A100-80GB, gpus_per_node: 8, cpu: 128, memory: 1Ti}
workload:
  generator:
    pods: 20
    arrivals_per_hour: 60
    shapes:
      - name: infer
        duration: {distribution: uniform, min: 1m30s, max: 1h30m}
        cpu: 500m
        memory: 4Gi
        resources: {nvidia.com/gpu: 1, nvidia.com/gpucores: 25, nvidia.com/gpumem: 10Gi}
engine:
  until: 2h30m
  sample_interval: 1m30s
policies:
  - placement: best-fit
)"));
  EXPECT_EQ(sc.cluster.groups[0].cpu_milli, 128000);
  EXPECT_EQ(sc.cluster.groups[0].memory_mib, 1048576);
  ASSERT_TRUE(sc.engine.until_s.has_value());
  EXPECT_DOUBLE_EQ(*sc.engine.until_s, 9000.0);
  EXPECT_DOUBLE_EQ(sc.engine.sample_interval_s, 90.0);
  ASSERT_TRUE(sc.generator.has_value());
  const PodSpec& shape = sc.generator->shapes[0].request;
  EXPECT_EQ(shape.cpu_milli, 500);
  EXPECT_EQ(shape.memory_mib, 4096);
  EXPECT_EQ(shape.gpu_count, 1);
  EXPECT_EQ(shape.gpu_milli, 250);
  EXPECT_EQ(shape.gpu_memory_mib, 10240);
  ASSERT_EQ(sc.pods.size(), 20U);
  for (const PodSpec& p : sc.pods) {
    EXPECT_GE(p.duration_s, 90.0);
    EXPECT_LE(p.duration_s, 5400.0);
    EXPECT_EQ(p.gpu_milli, 250);
  }
}

}  // namespace
}  // namespace slicelab
