// Pins down the `nvidia-smi topo -m` importer (real DGX matrices, and the exact message for
// each kind of broken input) and the scenario's `topology:` key with its located errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/cluster_state.h"
#include "sim/scenario/scenario.h"
#include "sim/topology/builtin_topologies.h"
#include "sim/topology/nvidia_smi_import.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(SLICELAB_SOURCE_DIR) + "/tests/topology";

// The message of the InputError that parsing `text` raises, or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    parse_nvidia_smi_topo(text, "t.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_same_scores(const GpuTopology& a, const GpuTopology& b) {
  ASSERT_EQ(a.gpu_count(), b.gpu_count());
  for (int i = 0; i < a.gpu_count(); ++i)
    for (int j = 0; j < a.gpu_count(); ++j)
      EXPECT_EQ(a.score(i, j), b.score(i, j)) << i << "-" << j;
}

// --- real matrices ---

TEST(NvidiaSmiImport, Dgx1MatrixEqualsTheBuiltInCubeMesh) {
  // NIC rows and columns, the CPU affinity column and the legend are skipped.
  const auto t = load_nvidia_smi_topo(kDir + "/dgx1-v100.txt");
  EXPECT_EQ(t->name(), "nvidia-smi:dgx1-v100.txt");
  expect_same_scores(*t, *builtin_topology("hybrid-cube-mesh-8"));
  EXPECT_EQ(t->link(0, 3).nvlinks, 2);
  EXPECT_EQ(t->link(0, 5).kind, LinkKind::kCrossCpu);
}

TEST(NvidiaSmiImport, DgxH100WithUnderlinedHeaderEqualsNvSwitch) {
  // Recent drivers wrap the header in ANSI underline escapes and add NUMA columns.
  const auto t = load_nvidia_smi_topo(kDir + "/dgx-h100.txt");
  expect_same_scores(*t, *builtin_topology("nvswitch-8"));
}

TEST(NvidiaSmiImport, EveryPcieLevelAndOldSocSpelling) {
  const auto t = parse_nvidia_smi_topo(
      "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tCPU Affinity\n"
      "GPU0\t X \tPIX\tPXB\tPHB\tNODE\t0-7\n"
      "GPU1\tPIX\t X \tSOC\tNV3\tPHB\t0-7\n"
      "GPU2\tPXB\tSOC\t X \tPIX\tPIX\t0-7\n"
      "GPU3\tPHB\tNV3\tPIX\t X \tPIX\t0-7\n"
      "GPU4\tNODE\tPHB\tPIX\tPIX\t X \t0-7\n",
      "t.txt");
  EXPECT_EQ(t->score(0, 1), 50);
  EXPECT_EQ(t->score(0, 2), 40);
  EXPECT_EQ(t->score(0, 3), 30);
  EXPECT_EQ(t->score(0, 4), 20);
  EXPECT_EQ(t->score(1, 2), 10);
  EXPECT_EQ(t->score(1, 3), 300);
  EXPECT_EQ(t->nvlink_component_count(), 4);  // {1,3} and three lone GPUs
}

TEST(NvidiaSmiImport, SingleGpu) {
  const auto t = parse_nvidia_smi_topo("\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\n", "t.txt");
  EXPECT_EQ(t->gpu_count(), 1);
}

// --- broken input: exact messages ---

TEST(NvidiaSmiImport, NoMatrix) {
  EXPECT_EQ(parse_error(""),
            "t.txt: no GPU matrix found (expected a header line 'GPU0 GPU1 ...' as `nvidia-smi "
            "topo -m` prints it)");
  EXPECT_EQ(parse_error("No devices were found\n"), parse_error(""));
}

TEST(NvidiaSmiImport, UnknownCell) {
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\nGPU0\t X \tNVX\nGPU1\tNVX\t X \n"),
            "t.txt:2:10: GPU0 to GPU1: expected NV<links>, PIX, PXB, PHB, NODE or SYS, found "
            "'NVX'");
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\nGPU0\t X \tNV0\nGPU1\tNV0\t X \n"),
            "t.txt:2:10: GPU0 to GPU1: expected NV<links>, PIX, PXB, PHB, NODE or SYS, found "
            "'NV0'");
}

TEST(NvidiaSmiImport, XOffTheDiagonalOrMissingOnIt) {
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\nGPU0\t X \tX\nGPU1\tX\t X \n"),
            "t.txt:2:10: GPU0 to GPU1: expected NV<links>, PIX, PXB, PHB, NODE or SYS, found "
            "'X'");
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\nGPU0\t X \tPIX\nGPU1\tPIX\tPIX\n"),
            "t.txt:3:10: GPU1 to GPU1: expected X on the diagonal, found 'PIX'");
}

TEST(NvidiaSmiImport, AsymmetricMatrix) {
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\tGPU2\n"
                        "GPU0\t X \tNV1\tSYS\n"
                        "GPU1\tNV1\t X \tPIX\n"
                        "GPU2\tSYS\tNV2\t X \n"),
            "t.txt:4:10: GPU2 to GPU1 is NV2 but GPU1 to GPU2 is PIX (line 3)");
}

TEST(NvidiaSmiImport, ShortMissingOrMisorderedRows) {
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tPIX\n"),
            "t.txt:2: GPU0: expected 3 entries, found 2");
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\tGPU2\n"
                        "GPU0\t X \tPIX\tPIX\n"
                        "GPU2\tPIX\tPIX\t X \n"),
            "t.txt:3:1: expected row GPU1, found 'GPU2'");
  EXPECT_EQ(parse_error("\tGPU0\tGPU1\tGPU2\n"
                        "GPU0\t X \tPIX\tPIX\n"
                        "GPU1\tPIX\t X \tPIX\n"
                        "\n"
                        "Legend:\n"),
            "t.txt:3: expected 3 GPU rows, found 2");
}

TEST(NvidiaSmiImport, HeaderSkipsAGpu) {
  EXPECT_EQ(parse_error("\tGPU0\tGPU2\nGPU0\t X \tPIX\n"),
            "t.txt:1:7: expected column GPU1, found 'GPU2'");
}

TEST(NvidiaSmiImport, UnreadableFile) {
  try {
    load_nvidia_smi_topo(kDir + "/no-such-file.txt");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), kDir + "/no-such-file.txt: cannot open file");
  }
}

// --- the scenario key ---

// Writes a scenario (and optionally an nvidia-smi file beside it) into a fresh folder.
class TopologyScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("slicelab-topology-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  // A scenario whose first node group ends with `group_tail` (more YAML keys of that group).
  std::string scenario(const std::string& group_tail) {
    return write("s.yaml",
                 "cluster:\n"
                 "  node_groups:\n"
                 "    - name: g\n"
                 "      count: 2\n"
                 "      cpu_milli: 64000\n"
                 "      memory_mib: 512Gi\n" +
                     group_tail +
                     "workload:\n"
                     "  pods:\n"
                     "    - {name: p, arrival: 0, duration: 10, gpu_count: 2}\n"
                     "policies: [{placement: topology-aware}]\n");
  }

  std::string load_error(const std::string& path) {
    try {
      load_scenario(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(TopologyScenario, BuiltInNameReachesTheClusterState) {
  const Scenario sc = load_scenario(scenario(
      "      gpu_model: A100-80GB\n      gpus_per_node: 8\n      topology: nvlink-pairs-8\n"));
  ASSERT_NE(sc.cluster.groups[0].topology, nullptr);
  EXPECT_EQ(sc.cluster.groups[0].topology->name(), "nvlink-pairs-8");
  const ClusterState state(sc.cluster, sc.catalog, 1);
  ASSERT_NE(state.topology(1), nullptr);
  EXPECT_EQ(state.topology(1)->score(0, 1), 1200);
}

TEST_F(TopologyScenario, NoTopologyMeansNull) {
  const Scenario sc =
      load_scenario(scenario("      gpu_model: A100-80GB\n      gpus_per_node: 8\n"));
  EXPECT_EQ(sc.cluster.groups[0].topology, nullptr);
  EXPECT_EQ(ClusterState(sc.cluster, sc.catalog, 1).topology(0), nullptr);
}

TEST_F(TopologyScenario, NvidiaSmiFileRelativeToTheScenario) {
  fs::create_directories(dir_ / "topo");
  fs::copy_file(kDir + "/dgx1-v100.txt", dir_ / "topo" / "dgx1.txt");
  const Scenario sc =
      load_scenario(scenario("      gpu_model: V100-32GB\n      gpus_per_node: 8\n"
                             "      topology: {nvidia_smi: topo/dgx1.txt}\n"));
  ASSERT_NE(sc.cluster.groups[0].topology, nullptr);
  EXPECT_EQ(sc.cluster.groups[0].topology->score(0, 3), 200);
}

TEST_F(TopologyScenario, UnknownName) {
  const std::string p =
      scenario("      gpu_model: A100-80GB\n      gpus_per_node: 8\n      topology: dgx-a100\n");
  EXPECT_EQ(load_error(p), p +
                               ":9:17: cluster.node_groups[0].topology: unknown topology "
                               "'dgx-a100' (known: " +
                               builtin_topology_names() + "; or {nvidia_smi: FILE})");
}

TEST_F(TopologyScenario, GpuCountMismatch) {
  const std::string p =
      scenario("      gpu_model: A100-80GB\n      gpus_per_node: 4\n      topology: nvswitch-8\n");
  EXPECT_EQ(load_error(p), p + ":9:17: cluster.node_groups[0].topology: topology 'nvswitch-8' "
                               "has 8 GPUs but gpus_per_node is 4");
  write("two.txt", "\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\t X \n");
  const std::string q = scenario(
      "      gpu_model: A100-80GB\n      gpus_per_node: 4\n      topology: {nvidia_smi: "
      "two.txt}\n");
  EXPECT_EQ(load_error(q), q + ":9:17: cluster.node_groups[0].topology: '" +
                               (dir_ / "two.txt").string() + "' has 2 GPUs but gpus_per_node is 4");
}

TEST_F(TopologyScenario, MissingOrBrokenFile) {
  const std::string p = scenario(
      "      gpu_model: A100-80GB\n      gpus_per_node: 2\n      topology: {nvidia_smi: "
      "nope.txt}\n");
  EXPECT_EQ(load_error(p), p +
                               ":9:30: cluster.node_groups[0].topology.nvidia_smi: topology "
                               "file '" +
                               (dir_ / "nope.txt").string() + "' does not exist");
  // The error lies in the matrix: its own file and line are named.
  const std::string bad = write("bad.txt", "\tGPU0\tGPU1\nGPU0\t X \tNV1\nGPU1\tPIX\t X \n");
  const std::string q = scenario(
      "      gpu_model: A100-80GB\n      gpus_per_node: 2\n      topology: {nvidia_smi: "
      "bad.txt}\n");
  EXPECT_EQ(load_error(q), bad + ":3:6: GPU1 to GPU0 is PIX but GPU0 to GPU1 is NV1 (line 2)");
}

TEST_F(TopologyScenario, WrongShapes) {
  const std::string p = scenario("      topology: nvswitch-8\n");
  EXPECT_EQ(load_error(p), p + ":7:17: cluster.node_groups[0].topology: a topology needs "
                               "gpus_per_node of at least 1");
  const std::string q = scenario(
      "      gpu_model: A100-80GB\n      gpus_per_node: 8\n      topology: [nvswitch-8]\n");
  EXPECT_EQ(load_error(q), q + ":9:17: cluster.node_groups[0].topology: expected a topology "
                               "name or {nvidia_smi: FILE}, found a list");
  const std::string r = scenario(
      "      gpu_model: A100-80GB\n      gpus_per_node: 8\n      topology: {nvidia-smi: x.txt}\n");
  EXPECT_EQ(load_error(r),
            r + ":9:18: cluster.node_groups[0].topology: unknown key 'nvidia-smi' (did you "
                "mean 'nvidia_smi'?)");
}

}  // namespace
}  // namespace slicelab
