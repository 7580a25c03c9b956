// The openb importer on the shipped trace (counts from its documentation) and on broken files
// (exact messages with file:line), plus the scenario keys that use it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/gpu_catalog.h"
#include "sim/metrics/fragmentation.h"
#include "sim/scenario/import_sources.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"
#include "workloads/inputs/openb_reader.h"
#include "workloads/trace_summary.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kOpenb = std::string(SLICELAB_SOURCE_DIR) + "/workloads/traces/openb";

using testing::message_of;
using OpenbFiles = testing::TempFilesTest;

const char* const kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

TEST(OpenbShipped, DefaultPodListMatchesTheTraceDocumentation) {
  const auto pods = read_openb_pods(kOpenb + "/openb_pod_list_default.csv");
  TraceSummary s;
  s.add_pods(pods);
  EXPECT_EQ(s.pods, 8152U);
  EXPECT_EQ(s.cpu_only, 1088U);
  EXPECT_EQ(s.one_gpu, 6989U);
  EXPECT_EQ(s.fractional, 3078U);
  EXPECT_EQ(s.multi_gpu, 75U);
  EXPECT_EQ(s.pods_by_gpu_count.at(2), 16U);
  EXPECT_EQ(s.pods_by_gpu_count.at(4), 15U);
  EXPECT_EQ(s.pods_by_gpu_count.at(8), 44U);
  EXPECT_EQ(s.gpu_demand_milli, 6086800);
  EXPECT_EQ(s.text(),
            "8152 pods: 1088 CPU-only, 6989 one-GPU (3078 fractional), 75 multi-GPU (16 x 2, 15 "
            "x 4, 44 x 8); GPU demand 6086.8 GPUs\n");
  // First row: openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
  const PodSpec& p = pods[1];
  EXPECT_EQ(p.name, "openb-pod-0001");
  EXPECT_EQ(p.cpu_milli, 6000);
  EXPECT_EQ(p.memory_mib, 12288);
  EXPECT_EQ(p.gpu_count, 1);
  EXPECT_EQ(p.gpu_milli, 460);
  EXPECT_TRUE(p.allowed_models.empty());
  EXPECT_EQ(p.workload_class, "LS");
  EXPECT_DOUBLE_EQ(p.arrival_s, 427061.0);
  EXPECT_DOUBLE_EQ(p.duration_s, 12902960.0 - 427061.0);
  // openb-pod-7285 was deleted when created (Pending): it keeps the 1 ms minimum.
  EXPECT_EQ(pods[7285].name, "openb-pod-7285");
  EXPECT_DOUBLE_EQ(pods[7285].duration_s, 0.001);
}

TEST(OpenbShipped, GpuNodeListMatchesTheTraceDocumentation) {
  const auto groups = read_openb_nodes(kOpenb + "/openb_node_list_gpu_node.csv");
  TraceSummary s;
  for (const auto& g : groups)
    s.add_nodes(static_cast<size_t>(g.count), g.gpus_per_node, g.gpu_model);
  EXPECT_EQ(s.nodes, 1213U);
  EXPECT_EQ(s.gpu_nodes, 1213U);
  EXPECT_EQ(s.gpus, 6212U);
  EXPECT_EQ(s.gpus_by_model.at("G2"), 549U * 8);
  EXPECT_EQ(s.gpus_by_model.at("G3"), 39U * 8);
  EXPECT_EQ(s.gpus_by_model.at("V100-16GB"), 8U * 8 + 28 * 4 + 19);
  EXPECT_EQ(s.gpus_by_model.at("V100-32GB"), 21U * 8 + 9 * 4);
  EXPECT_EQ(s.gpus_by_model.at("T4"), 17U * 4 + 387 * 2);
  EXPECT_EQ(s.gpus_by_model.at("P100"), 131U * 2 + 3);
  EXPECT_EQ(s.gpus_by_model.at("A10"), 2U);
  // Identical nodes form one group; P100 2-GPU nodes come in three shapes, named apart.
  EXPECT_EQ(groups.size(), 15U);
  EXPECT_EQ(groups[0].name, "openb-P100-2gpu");
  EXPECT_EQ(groups[0].cpu_milli, 64000);
  EXPECT_EQ(groups[0].memory_mib, 262144);
  size_t p100_pairs = 0;
  for (const auto& g : groups) {
    if (g.gpu_model == "P100" && g.gpus_per_node == 2) ++p100_pairs;
    if (g.name == "openb-G2-8gpu") {
      EXPECT_EQ(g.count, 549);
      EXPECT_EQ(g.cpu_milli, 96000);
      EXPECT_EQ(g.memory_mib, 393216);
    }
  }
  EXPECT_EQ(p100_pairs, 3U);
  EXPECT_TRUE(std::any_of(groups.begin(), groups.end(),
                          [](const OpenbNodeGroup& g) { return g.name == "openb-P100-2gpu-3"; }));
}

TEST(OpenbShipped, AllNodeListHasCpuOnlyNodes) {
  const auto groups = read_openb_nodes(kOpenb + "/openb_node_list_all_node.csv");
  TraceSummary s;
  for (const auto& g : groups)
    s.add_nodes(static_cast<size_t>(g.count), g.gpus_per_node, g.gpu_model);
  EXPECT_EQ(s.nodes, 1523U);
  EXPECT_EQ(s.gpus, 6212U);
  EXPECT_EQ(groups[0].name, "openb-cpu");
  EXPECT_TRUE(groups[0].gpu_model.empty());
}

TEST(OpenbModels, NamesMapToTheCatalog) {
  EXPECT_EQ(openb_model_name("V100M16"), "V100-16GB");
  EXPECT_EQ(openb_model_name("V100M32"), "V100-32GB");
  for (const char* same : {"P100", "T4", "A10", "G1", "G2", "G3"})
    EXPECT_EQ(openb_model_name(same), same);
  GpuCatalog c = GpuCatalog::builtin();
  add_openb_assumed_models(c);
  ASSERT_NE(c.find("G2"), nullptr);
  EXPECT_EQ(c.find("G1")->memory_mib, c.find("A10")->memory_mib);
  EXPECT_EQ(c.find("G2")->memory_mib, c.find("A100-80GB")->memory_mib);
  EXPECT_EQ(c.find("G3")->sm_count, c.find("H100-80GB")->sm_count);
}

TEST_F(OpenbFiles, GpuSpecAndQosAreRead) {
  const auto pods = read_openb_pods(
      write("p.csv", std::string(kPodHeader) +
                         "a,1000,2048,1,250,V100M16|V100M32|V100M32,BE,Running,10,70,10\n"
                         "b,1000,2048,2,1000,G2,,Running,0,5,\n"
                         "c,4000,0,0,0,,Guaranteed,Running,1.5,2.5,\n"));
  ASSERT_EQ(pods.size(), 3U);
  EXPECT_EQ(pods[0].allowed_models, (std::vector<std::string>{"V100-16GB", "V100-32GB"}));
  // The spec as written is kept beside the list, repeat and trace names included (FGD's target
  // workload keys on it, as the paper's simulator does).
  EXPECT_EQ(pods[0].allowed_models.written(), "V100M16|V100M32|V100M32");
  EXPECT_EQ(pods[1].allowed_models.written(), "G2");
  EXPECT_TRUE(pods[2].allowed_models.written().empty());
  EXPECT_EQ(pods[0].gpu_milli, 250);
  EXPECT_DOUBLE_EQ(pods[0].arrival_s, 10.0);
  EXPECT_DOUBLE_EQ(pods[0].duration_s, 60.0);
  EXPECT_EQ(pods[1].allowed_models, (std::vector<std::string>{"G2"}));
  EXPECT_EQ(pods[1].gpu_milli, 1000);
  EXPECT_EQ(pods[1].workload_class, "default");
  EXPECT_EQ(pods[2].gpu_count, 0);
  EXPECT_EQ(pods[2].gpu_milli, 1000);  // PodSpec's default for CPU-only pods
  EXPECT_DOUBLE_EQ(pods[2].duration_s, 1.0);
}

TEST_F(OpenbFiles, GpuSpecAsWrittenKeysFgdsTargetWorkload) {
  // The paper's simulator annotates each pod with its gpu_spec's names as written, empty ones
  // dropped (data/pod_csv_to_yaml.py), and keys the target workload on that text (GetPodResource):
  // "V100M16|V100M32|V100M32" and "V100M16|V100M32" are two shapes although they allow the same
  // models. Six pods: three "A|B" and one "A|B|B" of the same size (1 CPU, share 500), and two
  // whole-GPU pods with no gpu_spec (any model).
  const auto pods = read_openb_pods(write(
      "p.csv", std::string(kPodHeader) + "a1,1000,0,1,500,V100M16|V100M32,,Running,0,10,\n"
                                         "a2,1000,0,1,500,V100M16||V100M32,,Running,0,10,\n"
                                         "a3,1000,0,1,500,V100M16|V100M32,,Running,0,10,\n"
                                         "b1,1000,0,1,500,V100M16|V100M32|V100M32,,Running,0,10,\n"
                                         "c1,1000,0,1,1000,,,Running,0,10,\n"
                                         "c2,1000,0,1,1000,,,Running,0,10,\n"));
  ASSERT_EQ(pods.size(), 6U);
  EXPECT_EQ(pods[1].allowed_models.written(), "V100M16|V100M32");  // the empty name dropped
  EXPECT_EQ(pods[3].allowed_models, pods[0].allowed_models);
  EXPECT_EQ(pods[3].allowed_models.written(), "V100M16|V100M32|V100M32");

  const GpuCatalog catalog = GpuCatalog::builtin();
  const uint64_t v100s = (uint64_t{1} << *catalog.index_of("V100-16GB")) |
                         (uint64_t{1} << *catalog.index_of("V100-32GB"));
  // 95% of 6 = 5.7: "A|B" (3 pods), the whole-GPU shape (2, covered 5 < 5.7), "A|B|B" (1):
  // all three kept, frequencies 3/6, 2/6, 1/6; "A|B|B" has the same models, so the same mask.
  const TargetWorkload t = TargetWorkload::from_pods(pods, catalog);
  ASSERT_EQ(t.shapes.size(), 3U);
  EXPECT_EQ(t.shapes[0].gpu_milli, 500);
  EXPECT_EQ(t.shapes[0].model_mask, v100s);
  EXPECT_DOUBLE_EQ(t.shapes[0].freq, 3.0 / 6.0);
  EXPECT_EQ(t.shapes[1].gpu_milli, 1000);
  EXPECT_EQ(t.shapes[1].model_mask, ~uint64_t{0});
  EXPECT_DOUBLE_EQ(t.shapes[1].freq, 2.0 / 6.0);
  EXPECT_EQ(t.shapes[2].gpu_milli, 500);
  EXPECT_EQ(t.shapes[2].model_mask, v100s);
  EXPECT_DOUBLE_EQ(t.shapes[2].freq, 1.0 / 6.0);

  // The rule it replaces (each model once, so one "A|B" shape of 4 pods): two shapes, 4/6, 2/6.
  std::vector<PodSpec> merged = pods;
  for (PodSpec& p : merged)
    if (!p.allowed_models.empty()) p.allowed_models = p.allowed_models.to_vector();
  const TargetWorkload m = TargetWorkload::from_pods(merged, catalog);
  ASSERT_EQ(m.shapes.size(), 2U);
  EXPECT_DOUBLE_EQ(m.shapes[0].freq, 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.shapes[1].freq, 2.0 / 6.0);
}

TEST_F(OpenbFiles, ListWithoutTimeColumnsUsesTheDefaultDuration) {
  OpenbPodOptions o;
  o.default_duration_s = 90;
  const auto pods = read_openb_pods(
      write("p.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nx,1,1,8,1000\n"), o);
  ASSERT_EQ(pods.size(), 1U);
  EXPECT_DOUBLE_EQ(pods[0].arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(pods[0].duration_s, 90.0);
}

TEST_F(OpenbFiles, BrokenPodRowsNameFileLineAndColumn) {
  const std::string head = kPodHeader;
  struct Bad {
    std::string rows;
    std::string message;  // after "<file>:"
  };
  const Bad cases[] = {
      {"a,1000,2048,1,1500,,LS,Running,0,5,\n",
       "2: column 'gpu_milli': expected an integer in 1..1000, found '1500'"},
      {"a,1000,2048,1,500,,LS,Running,0,5,\nb,1000,2048,2,500,,LS,Running,0,5,\n",
       "3: column 'gpu_milli': expected an integer in 1000..1000, found '500'"},
      {"a,1000,2048,0,300,,LS,Running,0,5,\n",
       "2: column 'gpu_milli': expected an integer in 0..0, found '300'"},
      {"a,x,2048,1,500,,LS,Running,0,5,\n",
       "2: column 'cpu_milli': expected an integer of at least 0, found 'x'"},
      {"a,1,2048,9999,500,,LS,Running,0,5,\n",
       "2: column 'num_gpu': expected an integer in 0..64, found '9999'"},
      {"a,1,2048,1,500,,LS,Running,10,5,\n",
       "2: column 'deletion_time': expected a time at or after creation_time (10), found '5'"},
      {"a,1,2048,1,500,,LS,Running,10,,\n",
       "2: column 'deletion_time': expected a time in 0..31536000 (the simulation horizon of "
       "365d, in seconds), found ''"},
      {"a,1,2048,1,500,,LS,Running,1e20,1e21,\n",
       "2: column 'creation_time': expected a time in 0..31536000 (the simulation horizon of "
       "365d, in seconds), found '1e20'"},
      {"a,1,2048,1,500,,LS,Running,0,5,\na,1,2048,1,500,,LS,Running,0,5,\n",
       "3: column 'name': expected a unique pod name (also on line 2), found 'a'"},
      {"a,1,2048,1,500,,LS,Running,0,5\n", "2: expected 11 fields as in the header, found 10"},
      {"a,1,2048,0,0,T4,LS,Running,0,5,\n",
       "2: column 'gpu_spec': expected no GPU types for a pod with 0 GPUs, found 'T4'"},
      {"\"a,1,2048,1,500,,LS,Running,0,5,\n", "2: a quoted field is not closed"},
  };
  for (const Bad& b : cases) {
    const std::string file = write("bad.csv", head + b.rows);
    EXPECT_EQ(message_of([&] { read_openb_pods(file); }), file + ":" + b.message) << b.rows;
  }
}

TEST_F(OpenbFiles, UnknownGpuSpecModelIsReportedWithTheCatalogsNames) {
  const std::string file = write("p.csv", std::string(kPodHeader) +
                                              "a,1,1,1,500,T4,LS,Running,0,5,\n"
                                              "b,1,1,1,500,T4|A100,LS,Running,0,5,\n");
  const ModelCheck check = [](std::string_view m) -> std::optional<std::string> {
    if (m == "T4") return std::nullopt;
    return "unknown GPU model '" + std::string(m) + "' (known: T4)";
  };
  EXPECT_EQ(message_of([&] { read_openb_pods(file, {}, check); }),
            file + ":3: column 'gpu_spec': unknown GPU model 'A100' (known: T4)");
}

TEST_F(OpenbFiles, BrokenNodeFiles) {
  const std::string head = "sn,cpu_milli,memory_mib,gpu,model\n";
  std::string f = write("n.csv", head + "n0,1000,1024,8,G2\nn1,1000,1024,8,\n");
  EXPECT_EQ(message_of([&] { read_openb_nodes(f); }),
            f + ":3: column 'model': expected a GPU type for a node with 8 GPUs, found ''");
  f = write("n.csv", head + "n0,0,1024,8,G2\n");
  EXPECT_EQ(message_of([&] { read_openb_nodes(f); }),
            f + ":2: column 'cpu_milli': expected an integer of at least 1, found '0'");
  f = write("n.csv", head + "n0,1,1024,0,T4\n");
  EXPECT_EQ(message_of([&] { read_openb_nodes(f); }),
            f + ":2: column 'model': expected no GPU type for a node with 0 GPUs, found 'T4'");
  f = write("n.csv", "sn,cpu_milli,memory_mib,model\nn0,1,1,T4\n");
  EXPECT_EQ(message_of([&] { read_openb_nodes(f); }),
            f + ":1: missing column 'gpu' (the header has: sn, cpu_milli, memory_mib, model)");
  f = write("n.csv", head);
  EXPECT_EQ(message_of([&] { read_openb_nodes(f); }), f + ": no nodes after the header");
  f = write("n.csv", "");
  EXPECT_EQ(message_of([&] { read_openb_nodes(f); }), f + ": empty file: expected a header line");
}

// ---- scenario keys --------------------------------------------------------------------------

TEST_F(OpenbFiles, ScenarioReadsOpenbNodesAndPodsRelativeToItsFolder) {
  fs::create_directories(dir_ / "data");
  write("data/n.csv",
        "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,1024,8,G2\nn1,96000,1024,8,G2\n"
        "n2,8000,1024,0,\n");
  write("data/p.csv", std::string(kPodHeader) + "a,1000,2048,1,500,G2|T4,LS,Running,0,60,0\n");
  const Scenario sc = load_scenario(write("s.yaml", R"(gpu_models:
  G2: {like: H100-80GB, price_per_hour: 1.5}
cluster:
  openb_nodes: data/n.csv
workload:
  openb: {pods: data/p.csv}
policies:
  - placement: best-fit
)"));
  ASSERT_EQ(sc.cluster.groups.size(), 2U);
  EXPECT_EQ(sc.cluster.groups[0].name, "openb-G2-8gpu");
  EXPECT_EQ(sc.cluster.groups[0].count, 2);
  const GpuModel& g2 = sc.catalog.models()[sc.cluster.groups[0].gpu_model];
  EXPECT_EQ(g2.name, "G2");
  EXPECT_EQ(g2.sm_count, 132);  // the scenario's override, not the assumed A100-80GB
  EXPECT_DOUBLE_EQ(g2.price_per_hour, 1.5);
  EXPECT_EQ(sc.cluster.groups[1].gpus_per_node, 0);
  ASSERT_EQ(sc.pods.size(), 1U);
  EXPECT_EQ(sc.pods[0].allowed_models, (std::vector<std::string>{"G2", "T4"}));
  EXPECT_EQ(sc.workload_source, "openb data/p.csv");
}

TEST_F(OpenbFiles, ScenarioErrorsInTheCsvNameTheCsv) {
  write("p.csv", std::string(kPodHeader) + "a,1000,2048,1,5000,,LS,Running,0,60,0\n");
  const std::string s = write("s.yaml", R"(cluster:
  node_groups:
    - {count: 1, gpu_model: T4, gpus_per_node: 1, cpu_milli: 1000, memory_mib: 1Gi}
workload:
  openb: {pods: p.csv}
policies:
  - placement: best-fit
)");
  EXPECT_EQ(message_of([&] { load_scenario(s); }),
            (dir_ / "p.csv").string() +
                ":2: column 'gpu_milli': expected an integer in 1..1000, found '5000'");
  const std::string missing = write("m.yaml", R"(cluster:
  openb_nodes: nowhere.csv
workload:
  openb: {pods: p.csv}
policies:
  - placement: best-fit
)");
  EXPECT_EQ(message_of([&] { load_scenario(missing); }),
            missing + ":2:16: cluster.openb_nodes: file '" + (dir_ / "nowhere.csv").string() +
                "' does not exist");
}

}  // namespace
}  // namespace slicelab
