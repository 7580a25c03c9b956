// `import kubernetes` field by field: each Node and Pod field it reads, on small exports written
// here in kubectl's shape, and a clear error for each missing or unknown label or resource.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>

#include "sim/gpu_catalog.h"
#include "sim/scenario/kube_import.h"
#include "sim/scenario/scenario.h"
#include "workloads/input_error.h"
#include "workloads/inputs/pod_yaml.h"
#include "workloads/kube/kube_gfd_products.h"
#include "workloads/kube/kube_objects.h"
#include "workloads/rfc3339.h"
#include "workloads/trace_writer.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

class KubeImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("slicelab-kube-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  KubeObjects read(const std::string& text, const std::string& name = "export.json") {
    KubeObjects o;
    read_kube_objects(write(name, text), o);
    return o;
  }
  KubernetesImport import(const std::string& nodes, const std::string& pods,
                          KubernetesImportOptions options = {}) {
    KubeObjects o;
    read_kube_objects(write("nodes.json", nodes), o);
    if (!pods.empty()) read_kube_objects(write("pods.json", pods), o);
    return import_kubernetes(o, catalog_, options);
  }
  // The InputError's message, or "" when none is thrown.
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  GpuCatalog catalog_ = GpuCatalog::builtin();
  fs::path dir_;
};

std::string list(const std::string& kind, const std::string& items) {
  return R"({"apiVersion": "v1", "kind": ")" + kind + R"(", "items": [)" + items +
         R"(], "metadata": {"resourceVersion": ""}})";
}

// A Node as kubectl prints it, with `labels` (JSON members) and allocatable `extra` members.
std::string node(const std::string& name, const std::string& cpu, const std::string& memory,
                 const std::string& labels = "", const std::string& extra = "") {
  return R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": ")" + name +
         R"(", "uid": "0b1c", "resourceVersion": "4711", "creationTimestamp": "2026-11-01T00:00:00Z",
    "labels": {"kubernetes.io/hostname": ")" +
         name + "\"" + (labels.empty() ? "" : ", " + labels) +
         R"(}, "managedFields": [{"manager": "kubelet", "operation": "Update", "fieldsType": "FieldsV1",
    "fieldsV1": {"f:metadata": {}}}]},
    "spec": {}, "status": {"capacity": {"cpu": ")" +
         cpu + R"("}, "allocatable": {"cpu": ")" + cpu + R"(", "memory": ")" + memory +
         R"(", "pods": "110", "ephemeral-storage": "100Gi")" + (extra.empty() ? "" : ", " + extra) +
         R"(}, "conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.31.2"}}})";
}

const std::string kA100Labels =
    R"("nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920", "nvidia.com/gpu.count": "8")";
const std::string kA100 = node("a100-0", "64", "512Gi", kA100Labels, R"("nvidia.com/gpu": "8")");

struct PodArgs {
  std::string name = "p";
  std::string phase = "Pending";
  std::string node;
  std::string created = "2026-11-20T10:00:00Z";
  std::string containers =
      R"([{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}])";
  std::string init;
  std::string owner;  // "Job/name"
  std::string status_extra;
  std::string spec_extra;
};

std::string pod(const PodArgs& a) {
  std::string owner;
  if (!a.owner.empty()) {
    const size_t slash = a.owner.find('/');
    owner = R"(, "ownerReferences": [{"apiVersion": "batch/v1", "kind": ")" +
            a.owner.substr(0, slash) + R"(", "name": ")" + a.owner.substr(slash + 1) +
            R"(", "uid": "9f", "controller": true}])";
  }
  return R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ")" + a.name +
         R"(", "namespace": "ns", "uid": "77", "creationTimestamp": ")" + a.created + "\"" + owner +
         R"(}, "spec": {"containers": )" + a.containers +
         (a.init.empty() ? "" : R"(, "initContainers": )" + a.init) +
         (a.node.empty() ? "" : R"(, "nodeName": ")" + a.node + "\"") + a.spec_extra +
         R"(, "tolerations": []}, "status": {"phase": ")" + a.phase + "\"" + a.status_extra + "}}";
}

std::string gpu_container(const std::string& resources) {
  return R"([{"name": "c", "image": "i", "resources": )" + resources + "}]";
}

// ---- timestamps ----

TEST(Rfc3339, ReadsZuluOffsetsAndFractions) {
  std::string e;
  EXPECT_EQ(parse_rfc3339_seconds("1970-01-01T00:00:00Z", e), 0.0);
  // 2026-11-20: 56 years of 365 days, 14 leap days (1972..2024) and 323 days into 2026.
  EXPECT_EQ(parse_rfc3339_seconds("2026-11-20T10:00:00Z", e), 20777.0 * 86400 + 36000);
  EXPECT_EQ(parse_rfc3339_seconds("2026-11-20T11:00:00+01:00", e), 20777.0 * 86400 + 36000);
  EXPECT_EQ(parse_rfc3339_seconds("2026-11-20T10:00:00.25Z", e), 20777.0 * 86400 + 36000.25);
  EXPECT_EQ(parse_rfc3339_seconds("2024-02-29T00:00:00Z", e), 19782.0 * 86400);
}

TEST(Rfc3339, RefusesWhatIsNotATime) {
  std::string e;
  EXPECT_FALSE(parse_rfc3339_seconds("2026-13-01T00:00:00Z", e));
  EXPECT_NE(e.find("month 13"), std::string::npos) << e;
  EXPECT_FALSE(parse_rfc3339_seconds("2025-02-29T00:00:00Z", e));
  EXPECT_NE(e.find("day 29"), std::string::npos) << e;
  EXPECT_FALSE(parse_rfc3339_seconds("2026-11-20T10:00:00", e));
  EXPECT_NE(e.find("time zone"), std::string::npos) << e;
  EXPECT_FALSE(parse_rfc3339_seconds("1763632800", e));
}

// ---- GPU products ----

TEST(GfdProducts, MapsProductsAndMemoryToCatalogModels) {
  const GpuCatalog c = GpuCatalog::builtin();
  std::vector<std::string> models;
  for (const GpuModel& g : c.models()) models.push_back(g.name);
  std::string e;
  const auto name = [&](std::string_view product, int64_t mib) {
    const auto m = kube_gfd_product_model(product, mib, models, e);
    return m ? c.models()[*m].name : "error: " + e;
  };
  EXPECT_EQ(name("NVIDIA-A100-SXM4-80GB", 0), "A100-80GB");
  EXPECT_EQ(name("NVIDIA-A100-SXM4-40GB", 0), "A100-40GB");
  EXPECT_EQ(name("NVIDIA-A100-PCIE", 40960), "A100-40GB");  // the memory label decides
  EXPECT_EQ(name("NVIDIA-A100-PCIE", 81920), "A100-80GB");
  EXPECT_EQ(name("NVIDIA-L4", 23034), "L4");
  EXPECT_EQ(name("Tesla-T4", 15360), "T4");
  EXPECT_EQ(name("NVIDIA-H100-80GB-HBM3", 0), "H100-80GB");
  EXPECT_EQ(name("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 0), "A100-40GB");  // single MIG strategy
  EXPECT_EQ(name("NVIDIA-L4-SHARED", 0), "L4");                         // time-slicing replicas
  EXPECT_EQ(name("Tesla-V100-SXM2-16GB", 0), "V100-16GB");
  EXPECT_NE(name("NVIDIA-A100-PCIE", 0).find("nvidia.com/gpu.memory"), std::string::npos);
  const std::string l40 = name("NVIDIA-L40S", 46068);
  EXPECT_NE(l40.find("unknown GPU product 'NVIDIA-L40S'"), std::string::npos) << l40;
  EXPECT_NE(l40.find("did you mean L4?"), std::string::npos) << l40;
}

// ---- nodes ----

TEST_F(KubeImport, NodeAllocatableCpuMemoryAndGpus) {
  const KubeObjects o = read(list("List", kA100));
  ASSERT_EQ(o.nodes.size(), 1U);
  EXPECT_EQ(o.nodes[0].name, "a100-0");
  EXPECT_EQ(o.nodes[0].cpu_milli, 64000);
  EXPECT_EQ(o.nodes[0].memory_mib, 512 * 1024);
  EXPECT_EQ(o.nodes[0].gpu_resources, 8);
  EXPECT_EQ(*o.nodes[0].product, "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(o.nodes[0].gpu_memory_mib, 81920);
  EXPECT_EQ(*o.nodes[0].gpu_count, 8);
  // Kubernetes quantities: millicores, Ki.
  const KubeObjects q = read(list("NodeList", node("n", "3500m", "1048576Ki")), "q.json");
  EXPECT_EQ(q.nodes[0].cpu_milli, 3500);
  EXPECT_EQ(q.nodes[0].memory_mib, 1024);
}

TEST_F(KubeImport, IdenticalNodesShareAGroupAndKeepTheirNames) {
  const std::string nodes = list(
      "List", kA100 + "," + node("a100-1", "64", "512Gi", kA100Labels, R"("nvidia.com/gpu": "8")") +
                  "," + node("cpu-0", "16", "64Gi") + "," +
                  node("a100-2", "32", "512Gi", kA100Labels, R"("nvidia.com/gpu": "8")"));
  const KubernetesImport r = import(nodes, "");
  ASSERT_EQ(r.cluster.groups.size(), 3U);
  EXPECT_EQ(r.cluster.groups[0].name, "a100-80gb-x8");
  EXPECT_EQ(r.cluster.groups[0].count, 2);
  EXPECT_EQ(r.cluster.groups[0].node_names, (std::vector<std::string>{"a100-0", "a100-1"}));
  EXPECT_EQ(catalog_.models()[r.cluster.groups[0].gpu_model].name, "A100-80GB");
  EXPECT_EQ(r.cluster.groups[1].name, "cpu");
  EXPECT_EQ(r.cluster.groups[1].gpus_per_node, 0);
  EXPECT_EQ(r.cluster.groups[2].name, "a100-80gb-x8-2");  // fewer CPUs: a group of its own
  EXPECT_EQ(r.cluster.groups[2].cpu_milli, 32000);
}

TEST_F(KubeImport, GpuCountLabelIsThePhysicalCountUnderTimeSlicing) {
  const std::string labels =
      R"("nvidia.com/gpu.product": "NVIDIA-L4-SHARED", "nvidia.com/gpu.replicas": "4")";
  const KubernetesImport r =
      import(list("List", node("l4", "48", "180Gi", labels, R"("nvidia.com/gpu": "16")")), "");
  EXPECT_EQ(r.cluster.groups[0].gpus_per_node, 4);  // 16 replicas / 4
  const KubernetesImport c =
      import(list("List", node("l4", "48", "180Gi", labels + R"(, "nvidia.com/gpu.count": "2")",
                               R"("nvidia.com/gpu": "8")")),
             "");
  EXPECT_EQ(c.cluster.groups[0].gpus_per_node, 2);
}

TEST_F(KubeImport, MigMixedStrategyNodeIsImportedAsItsGpus) {
  const std::string labels =
      R"("nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "2", "nvidia.com/mig.strategy": "mixed")";
  const KubernetesImport r =
      import(list("List", node("mig", "32", "256Gi", labels,
                               R"("nvidia.com/mig-1g.5gb": "7", "nvidia.com/mig-3g.20gb": "2")")),
             "");
  EXPECT_EQ(r.cluster.groups[0].gpus_per_node, 2);
  EXPECT_EQ(catalog_.models()[r.cluster.groups[0].gpu_model].name, "A100-40GB");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("mixed"), std::string::npos) << r.notes[0];
}

TEST_F(KubeImport, UnknownProductNamesTheLabelValueAndNode) {
  const std::string nodes =
      list("List", node("gpu-7", "32", "256Gi", R"("nvidia.com/gpu.product": "NVIDIA-L40S")",
                        R"("nvidia.com/gpu": "4")"));
  const std::string e = error_of([&] { import(nodes, ""); });
  EXPECT_NE(e.find("nodes.json:"), std::string::npos) << e;
  EXPECT_NE(e.find("node 'gpu-7'"), std::string::npos) << e;
  EXPECT_NE(e.find("nvidia.com/gpu.product"), std::string::npos) << e;
  EXPECT_NE(e.find("'NVIDIA-L40S'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean L4?"), std::string::npos) << e;
}

TEST_F(KubeImport, MissingProductLabelOrAllocatableIsNamed) {
  const std::string no_label = error_of(
      [&] { import(list("List", node("g", "8", "32Gi", "", R"("nvidia.com/gpu": "1")")), ""); });
  EXPECT_NE(no_label.find("no label nvidia.com/gpu.product"), std::string::npos) << no_label;
  EXPECT_NE(no_label.find("node 'g'"), std::string::npos) << no_label;
  std::string text = node("g", "8", "32Gi");
  text.replace(text.find(R"("cpu": "8", "memory")"), 11, "");
  const std::string no_cpu = error_of([&] { read(list("List", text)); });
  EXPECT_NE(no_cpu.find("status.allocatable"), std::string::npos) << no_cpu;
  EXPECT_NE(no_cpu.find("cpu"), std::string::npos) << no_cpu;
  const std::string bad_cpu = error_of([&] { read(list("List", node("g", "8 cores", "32Gi"))); });
  EXPECT_NE(bad_cpu.find("items[0].status.allocatable.cpu"), std::string::npos) << bad_cpu;
  const std::string typo = error_of(
      [&] { read(list("List", node("g", "8", "32Gi", "", R"("nvidia.com/gpus": "1")"))); });
  EXPECT_NE(typo.find("unknown resource 'nvidia.com/gpus'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'nvidia.com/gpu'"), std::string::npos) << typo;
}

// ---- pods ----

TEST_F(KubeImport, RequestsSumOverContainersAndDefaultToLimits) {
  PodArgs a;
  a.containers =
      R"([{"name": "a", "image": "i", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}}},
                     {"name": "b", "image": "i", "resources": {"limits": {"cpu": "250m", "memory": "512Mi"}}}])";
  const KubeObjects o = read(list("PodList", pod(a)));
  ASSERT_EQ(o.pods.size(), 1U);
  EXPECT_EQ(o.pods[0].name, "ns/p");
  EXPECT_EQ(o.pods[0].cpu_milli, 750);    // 500m requested + 250m (b's limit, its request)
  EXPECT_EQ(o.pods[0].memory_mib, 1536);  // 1Gi + 512Mi
}

TEST_F(KubeImport, InitContainersCountAsTheLargerOfSumAndLargestInit) {
  PodArgs a;
  a.containers =
      R"([{"name": "a", "image": "i", "resources": {"requests": {"cpu": "1", "memory": "8Gi"}}},
                     {"name": "b", "image": "i", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}])";
  a.init =
      R"([{"name": "i1", "image": "i", "resources": {"requests": {"cpu": "3", "memory": "2Gi"}}},
               {"name": "i2", "image": "i", "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}])";
  const KubeObjects o = read(list("List", pod(a)));
  EXPECT_EQ(o.pods[0].cpu_milli, 3000);       // max(1 + 1, 3)
  EXPECT_EQ(o.pods[0].memory_mib, 9 * 1024);  // max(8 + 1, 4) Gi
}

TEST_F(KubeImport, GpusNodeNamePriorityAndTimes) {
  PodArgs a;
  a.phase = "Running";
  a.node = "a100-0";
  a.created = "2026-11-20T08:00:00Z";
  a.containers = gpu_container(
      R"({"limits": {"nvidia.com/gpu": "2"}, "requests": {"cpu": "4", "memory": "16Gi"}})");
  a.spec_extra = R"(, "priority": 1000, "priorityClassName": "serving")";
  a.status_extra =
      R"(, "startTime": "2026-11-20T08:00:05Z", "containerStatuses": [{"name": "c", "state": {"running": {"startedAt": "2026-11-20T08:00:30Z"}}}])";
  const KubeObjects o = read(list("List", pod(a)));
  const KubePod& p = o.pods[0];
  EXPECT_EQ(p.gpus, 2);
  EXPECT_EQ(p.node_name, "a100-0");
  EXPECT_EQ(p.priority, 1000);
  EXPECT_EQ(p.phase, "Running");
  std::string e;
  EXPECT_EQ(p.created_s, *parse_rfc3339_seconds("2026-11-20T08:00:00Z", e));
  EXPECT_EQ(p.started_s, *parse_rfc3339_seconds("2026-11-20T08:00:30Z", e));  // the container's
  EXPECT_FALSE(p.finished_s);
}

TEST_F(KubeImport, FinishedPodsGiveTheirOwnersDurations) {
  // Two finished pods of job/train ran 1h and 2h: the running one (30 min in) has 1.5h - 30min
  // left, the pending one runs the median 1.5h, a pod of another owner the default.
  std::string pods;
  const auto finished = [&](const std::string& name, const std::string& start,
                            const std::string& end) {
    PodArgs a;
    a.name = name;
    a.phase = "Succeeded";
    a.node = "a100-0";
    a.owner = "Job/train";
    a.created = "2026-11-20T00:00:00Z";
    a.status_extra =
        R"(, "containerStatuses": [{"name": "c", "state": {"terminated": {"exitCode": 0, "startedAt": ")" +
        start + R"(", "finishedAt": ")" + end + R"("}}}])";
    return pod(a);
  };
  pods += finished("f1", "2026-11-20T01:00:00Z", "2026-11-20T02:00:00Z") + ",";
  pods += finished("f2", "2026-11-20T03:00:00Z", "2026-11-20T05:00:00Z") + ",";
  PodArgs run;
  run.name = "r";
  run.phase = "Running";
  run.node = "a100-0";
  run.owner = "Job/train";
  run.created = "2026-11-20T09:30:00Z";
  run.status_extra =
      R"(, "containerStatuses": [{"name": "c", "state": {"running": {"startedAt": "2026-11-20T09:30:00Z"}}}])";
  PodArgs pend;
  pend.name = "q";
  pend.owner = "Job/train";
  pend.created = "2026-11-20T10:00:00Z";  // the latest timestamp: the snapshot time
  PodArgs other;
  other.name = "o";
  other.created = "2026-11-20T09:00:00Z";
  pods += pod(run) + "," + pod(pend) + "," + pod(other);
  KubernetesImportOptions opt;
  opt.pending_duration_s = 600;
  const KubernetesImport r = import(list("List", kA100), list("List", pods), opt);
  ASSERT_EQ(r.pods.size(), 3U);
  EXPECT_EQ(r.finished_pods, 2);
  EXPECT_EQ(r.pods[0].name, "ns/r");  // the snapshot's pods first
  EXPECT_EQ(r.pods[0].duration_s, 5400.0 - 1800.0);
  EXPECT_EQ(r.pods[1].name, "ns/q");
  EXPECT_EQ(r.pods[1].duration_s, 5400.0);
  EXPECT_EQ(r.pods[2].name, "ns/o");
  EXPECT_EQ(r.pods[2].duration_s, 600.0);
  ASSERT_EQ(r.snapshot.size(), 1U);
  EXPECT_EQ(r.snapshot[0], (std::pair<std::string, std::string>{"ns/r", "a100-0"}));
  EXPECT_EQ(r.phases.at("Succeeded"), 2);
  EXPECT_EQ(r.phases.at("Pending"), 2);
}

TEST_F(KubeImport, PodsCreatedAfterTheSnapshotTimeArriveLater) {
  PodArgs a;
  a.created = "2026-11-20T10:05:00Z";
  KubernetesImportOptions opt;
  std::string e;
  opt.snapshot_s = parse_rfc3339_seconds("2026-11-20T10:00:00Z", e);
  const KubernetesImport r = import(list("List", kA100), list("List", pod(a)), opt);
  ASSERT_EQ(r.pods.size(), 1U);
  EXPECT_EQ(r.pods[0].arrival_s, 300.0);
}

TEST_F(KubeImport, HamiResourcesAndNodeSelector) {
  PodArgs a;
  a.phase = "Running";
  a.node = "a100-0";
  a.containers = gpu_container(
      R"({"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem-percentage": "25", "nvidia.com/gpucores": "30"}})");
  PodArgs b;
  b.name = "b";
  b.containers =
      gpu_container(R"({"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "10240"}})");
  b.spec_extra = R"(, "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"})";
  const KubernetesImport r = import(list("List", kA100), list("List", pod(a) + "," + pod(b)));
  ASSERT_EQ(r.pods.size(), 2U);
  EXPECT_EQ(r.pods[0].gpu_milli, 300);          // 30% of the GPU's compute
  EXPECT_EQ(r.pods[0].gpu_memory_percent, 25);  // resolved on its GPU, as HAMi does
  EXPECT_EQ(r.pods[0].gpu_memory_mib, 0);
  {  // the trace the import writes keeps it
    std::ostringstream text;
    write_trace_yaml(text, r.pods, "t");
    const std::vector<PodSpec> back = read_trace_file(write("t.yaml", text.str()));
    EXPECT_EQ(back.at(0).gpu_memory_percent, 25);
    EXPECT_EQ(back.at(0).gpu_milli, 300);
    EXPECT_EQ(back.at(1).gpu_memory_mib, 10240);
  }
  EXPECT_EQ(r.pods[1].gpu_memory_mib, 10240);
  EXPECT_EQ(r.pods[1].gpu_milli, 1000);
  EXPECT_EQ(r.pods[1].allowed_models, (std::vector<std::string>{"A100-80GB"}));
  const std::string typo = error_of([&] {
    PodArgs t;
    t.containers = gpu_container(R"({"limits": {"nvidia.com/gpumemory": "1000"}})");
    read(list("List", pod(t)));
  });
  EXPECT_NE(typo.find("unknown resource 'nvidia.com/gpumemory' of pod 'ns/p'"), std::string::npos)
      << typo;
  EXPECT_NE(typo.find("did you mean 'nvidia.com/gpumem'"), std::string::npos) << typo;
}

TEST_F(KubeImport, HamiGpuTypeAnnotationsBecomeAllowedModels) {
  const std::string nodes =
      list("List", kA100 + "," +
                       node("l4-0", "48", "180Gi", R"("nvidia.com/gpu.product": "NVIDIA-L4")",
                            R"("nvidia.com/gpu": "4")"));
  const auto allowed = [&](const std::string& annotations) {
    PodArgs a;
    a.containers = gpu_container(R"({"limits": {"nvidia.com/gpu": "1"}})");
    std::string text = pod(a);
    text.replace(text.find(R"("uid": "77")"), 11,
                 R"("uid": "77", "annotations": {)" + annotations + "}");
    const KubernetesImport r = import(nodes, list("List", text));
    std::vector<std::string> out;
    for (const auto& m : r.pods.at(0).allowed_models) out.emplace_back(m);
    return out;
  };
  EXPECT_EQ(allowed(R"("nvidia.com/use-gputype": "a100")"),
            (std::vector<std::string>{"A100-80GB"}));
  EXPECT_EQ(allowed(R"("nvidia.com/nouse-gputype": "A100")"), (std::vector<std::string>{"L4"}));
  EXPECT_EQ(allowed(R"("nvidia.com/use-gputype": "L4, A100")"),
            (std::vector<std::string>{"A100-80GB", "L4"}));
  const std::string none = error_of([&] { allowed(R"("nvidia.com/use-gputype": "H100")"); });
  EXPECT_NE(none.find("leave no GPU model of the cluster"), std::string::npos) << none;
}

TEST_F(KubeImport, MigResourceBecomesTheProfile) {
  PodArgs a;
  a.containers = gpu_container(R"({"limits": {"nvidia.com/mig-1g.10gb": "1"}})");
  const KubernetesImport r = import(list("List", kA100), list("List", pod(a)));
  EXPECT_EQ(r.pods[0].gpu_count, 1);
  EXPECT_EQ(r.pods[0].mig_profile, "1g.10gb");
  const std::string bad = error_of([&] {
    PodArgs b;
    b.containers = gpu_container(R"({"limits": {"nvidia.com/mig-1g.11gb": "1"}})");
    read(list("List", pod(b)));
  });
  EXPECT_NE(bad.find("unknown MIG profile '1g.11gb'"), std::string::npos) << bad;
}

TEST_F(KubeImport, PodOnAMissingNodeOrOverCommittingItIsAnError) {
  PodArgs a;
  a.phase = "Running";
  a.node = "gone";
  const std::string missing = error_of([&] { import(list("List", kA100), list("List", pod(a))); });
  EXPECT_NE(missing.find("pod 'ns/p' runs on node 'gone'"), std::string::npos) << missing;
  // A finished pod's node may have been scaled away since: it only teaches durations.
  PodArgs done = a;
  done.phase = "Succeeded";
  EXPECT_EQ(import(list("List", kA100), list("List", pod(done))).finished_pods, 1);
  PodArgs big;
  big.phase = "Running";
  big.node = "a100-0";
  big.containers = gpu_container(R"({"limits": {"nvidia.com/gpu": "6"}})");
  PodArgs big2 = big;
  big2.name = "p2";
  const std::string over =
      error_of([&] { import(list("List", kA100), list("List", pod(big) + "," + pod(big2))); });
  EXPECT_NE(over.find("pod 'ns/p2' does not fit node 'a100-0'"), std::string::npos) << over;
  EXPECT_NE(over.find("6000 thousandths of GPUs"), std::string::npos) << over;
}

TEST_F(KubeImport, DaemonSetPodsAreTakenOffTheirNodes) {
  PodArgs d;
  d.phase = "Running";
  d.node = "a100-0";
  d.owner = "DaemonSet/device-plugin";
  d.containers =
      R"([{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}])";
  const KubernetesImport r = import(list("List", kA100), list("List", pod(d)));
  EXPECT_TRUE(r.pods.empty());
  EXPECT_EQ(r.daemon_pods, 1);
  EXPECT_EQ(r.cluster.groups[0].cpu_milli, 64000 - 100);
  EXPECT_EQ(r.cluster.groups[0].memory_mib, 512 * 1024 - 64);
}

// ---- file shapes ----

TEST_F(KubeImport, YamlListAndStreamsOfDocumentsAndJsonValues) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: y0
    labels: {nvidia.com/gpu.product: Tesla-T4}
  status:
    allocatable: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
metadata:
  resourceVersion: ""
)";
  const KubeObjects y = read(yaml, "nodes.yaml");
  ASSERT_EQ(y.nodes.size(), 1U);
  EXPECT_EQ(y.nodes[0].name, "y0");
  EXPECT_EQ(*y.nodes[0].product, "Tesla-T4");
  const std::string docs =
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: d0}\nstatus: {allocatable: {cpu: '2', "
      "memory: 8Gi}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: d1}\nstatus: "
      "{allocatable: {cpu: '2', memory: 8Gi}}\n---\nkind: Service\nmetadata: {name: s}\n";
  const KubeObjects d = read(docs, "docs.yaml");
  ASSERT_EQ(d.nodes.size(), 2U);
  EXPECT_EQ(d.nodes[1].name, "d1");
  EXPECT_EQ(d.skipped_kinds.at("Service"), 1);
  // jq -c '.items[]' prints one JSON object per line; kubectl's own output may use tabs.
  const std::string stream = node("j0", "2", "8Gi") + "\n" + node("j1", "2", "8Gi") + "\n\t" +
                             node("j2", "2", "8Gi") + node("j3", "2", "8Gi");
  const KubeObjects s = read(stream, "stream.json");
  ASSERT_EQ(s.nodes.size(), 4U);
  EXPECT_EQ(s.nodes[3].name, "j3");
}

TEST_F(KubeImport, StreamsKeepTheSingleDocumentChecks) {
  const std::string dup = error_of(
      [&] { read("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nkind: Pod\n", "dup.yaml"); });
  EXPECT_NE(dup.find("duplicate key 'kind'"), std::string::npos) << dup;
  const std::string alias =
      error_of([&] { read("kind: List\nitems: &x []\n---\nkind: List\nitems: *x\n", "a.yaml"); });
  EXPECT_NE(alias.find("anchors"), std::string::npos) << alias;
  // A fuzz finding: yaml-cpp restarted an empty document here forever.
  const std::string stuck = error_of([&] { read(",ind: Node\nm\"scenario\"R}\n", "stuck.yaml"); });
  EXPECT_NE(stuck.find("stuck.yaml:"), std::string::npos) << stuck;
  const std::string syntax =
      error_of([&] { read("{\"kind\": \"List\", \"items\": [}", "bad.json"); });
  EXPECT_NE(syntax.find("bad.json:1:"), std::string::npos) << syntax;
}

TEST_F(KubeImport, OversizedExportIsRefusedBeforeReading) {
  const std::string path = write("huge.json", "");
  fs::resize_file(path, kMaxKubernetesExportBytes + 1);  // sparse: no disk used
  KubeObjects o;
  const std::string e = error_of([&] { read_kube_objects(path, o); });
  EXPECT_NE(e.find("larger than the limit of 256 MiB"), std::string::npos) << e;
}

// ---- the scenario side: node_names and workload.snapshot ----

TEST_F(KubeImport, ScenarioSnapshotIsCheckedAtLoad) {
  const std::string trace = write("trace.yaml", R"(pods:
  - {name: a, duration: 60, gpu_count: 4, cpu_milli: 1000, memory_mib: 1024}
  - {name: b, duration: 60, gpu_count: 4, cpu_milli: 1000, memory_mib: 1024}
  - {name: c, arrival: 5, duration: 60, gpu_count: 1}
)");
  const auto scenario = [&](const std::string& snapshot, const std::string& names) {
    write("snap.yaml", "snapshot:\n" + snapshot);
    return write("s.yaml", R"(name: s
cluster:
  node_groups:
    - {name: g, count: 2, cpu_milli: 8000, memory_mib: 65536, gpu_model: A100-80GB, gpus_per_node: 4, node_names: )" +
                               names + R"(}
workload: {trace: trace.yaml, snapshot: snap.yaml}
policies: [{placement: best-fit}]
)");
  };
  const Scenario ok =
      load_scenario(scenario("  - {pod: a, node: n1}\n  - {pod: b, node: n0}\n", "[n0, n1]"));
  ASSERT_EQ(ok.snapshot.size(), 2U);
  EXPECT_EQ(ok.snapshot[0].pod, 0U);
  EXPECT_EQ(ok.snapshot[0].node, 1U);  // n1: the group's second node
  EXPECT_EQ(ok.snapshot[1].node, 0U);
  const std::string unknown =
      error_of([&] { load_scenario(scenario("  - {pod: a, node: n7}\n", "[n0, n1]")); });
  EXPECT_NE(unknown.find("snap.yaml:2:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("no node 'n7' in the cluster"), std::string::npos) << unknown;
  const std::string over = error_of([&] {
    load_scenario(scenario("  - {pod: a, node: n0}\n  - {pod: b, node: n0}\n", "[n0, n1]"));
  });
  EXPECT_NE(over.find("pod 'b' does not fit node 'n0'"), std::string::npos) << over;
  const std::string late =
      error_of([&] { load_scenario(scenario("  - {pod: c, node: n0}\n", "[n0, n1]")); });
  EXPECT_NE(late.find("arrives at 5s"), std::string::npos) << late;
  const std::string count =
      error_of([&] { load_scenario(scenario("  - {pod: a, node: n0}\n", "[n0]")); });
  EXPECT_NE(count.find("lists 1 names for a group of count 2"), std::string::npos) << count;
  const std::string dup =
      error_of([&] { load_scenario(scenario("  - {pod: a, node: n0}\n", "[n0, n0]")); });
  EXPECT_NE(dup.find("duplicate node name 'n0'"), std::string::npos) << dup;
}

// ---- what the scenario format refuses, refused at the import ----

// The pod as the trace will hold it goes through the trace format's own reader: a pod of
// 2,000 one-GPU containers (64 GPUs at most per pod), or one whose CPU request is past the
// format's range, is refused at its place in the export.
TEST_F(KubeImport, PodsTheTraceFormatRefusesAreRefusedAtThePod) {
  std::string containers = "[";
  for (int i = 0; i < 2000; ++i)
    containers += std::string(i == 0 ? "" : ", ") + R"({"name": "c)" + std::to_string(i) +
                  R"(", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}})";
  containers += "]";
  PodArgs wide;
  wide.name = "wide";
  wide.containers = containers;
  const std::string pods = list("List", pod(PodArgs{}) + ",\n" + pod(wide));
  const std::string e = error_of([&] { import(list("List", kA100), pods); });
  EXPECT_EQ(e, (dir_ / "pods.json").string() +
                   ":2:1: items[1]: pod 'ns/wide' becomes a trace pod that slicelab's scenario "
                   "format refuses: gpu_count: expected an integer in 0..64, found '2000' "
                   "(docs/kubernetes-import.md#limits)");
  // The same pod with 64 GPUs is what the format takes.
  containers =
      R"([{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "64"}}}])";
  wide.containers = containers;
  EXPECT_EQ(import(list("List", kA100), list("List", pod(wide))).pods.at(0).gpu_count, 64);
  PodArgs cpu;
  cpu.containers =
      R"([{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2000000000"}}}])";
  const std::string big = error_of([&] { import(list("List", kA100), list("List", pod(cpu))); });
  EXPECT_NE(big.find("items[0]: pod 'ns/p' becomes a trace pod that slicelab's scenario format "
                     "refuses: cpu_milli: expected an integer in 0..1099511627776, found "
                     "'2000000000000'"),
            std::string::npos)
      << big;
}

// A node the scenario's node groups cannot hold (no allocatable CPU) is refused at the node.
TEST_F(KubeImport, NodeWithoutCpuIsRefusedAtTheNode) {
  const std::string e = error_of([&] { import(list("List", node("empty", "0", "8Gi")), ""); });
  EXPECT_NE(e.find((dir_ / "nodes.json").string() + ":1:"), std::string::npos) << e;
  EXPECT_NE(e.find("node 'empty': allocatable cpu of 0 millicores; a scenario's node has 1 to "
                   "1099511627776"),
            std::string::npos)
      << e;
}

// Requests summed over many containers saturate instead of wrapping around.
TEST_F(KubeImport, HugeRequestsDoNotWrapAround) {
  PodArgs p;
  p.containers = R"([{"name": "a", "image": "i", "resources": {"requests": {"cpu": "9e15"}}},
                     {"name": "b", "image": "i", "resources": {"requests": {"cpu": "9e15"}}}])";
  const KubeObjects o = read(list("List", pod(p)));
  ASSERT_EQ(o.pods.size(), 1U);
  EXPECT_EQ(o.pods[0].cpu_milli, std::numeric_limits<int64_t>::max());
}

// ---- reading one object at a time ----

// kubectl's JSON List is read an item at a time; positions stay the file's.
TEST_F(KubeImport, ErrorsInLaterItemsNameTheirLine) {
  PodArgs bad;
  bad.name = "bad";
  bad.created = "yesterday";
  const std::string text =
      list("List", pod(PodArgs{}) + ",\n" + pod(PodArgs{}) + ",\n  " + pod(bad));
  const std::string e = error_of([&] { read(text); });
  EXPECT_EQ(e.rfind((dir_ / "export.json").string() + ":3:", 0), 0U) << e;
  EXPECT_NE(e.find("items[2].metadata.creationTimestamp: not an RFC 3339 time"), std::string::npos)
      << e;
}

}  // namespace
}  // namespace slicelab
