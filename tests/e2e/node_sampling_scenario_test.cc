// percentage_of_nodes_to_score from the scenario's side: read from the placement mapping,
// checked, off by default, and on a cluster past kube-scheduler's 100-node minimum it changes
// where pods go (each cycle scores only the nodes its rotating scan found).
#include <gtest/gtest.h>

#include <string>

#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace node_sampling_scenario_test {

class NodeSamplingScenario : public testing::TempFilesTest {
 protected:
  // 400 one-GPU nodes and 100 half-GPU pods that never leave: best-fit with the lowest-index
  // tie rule packs two pods per GPU from node 0 when it scores every node.
  std::string scenario(const std::string& policies) {
    return write("s.yaml", R"(name: sampling
cluster:
  node_groups:
    - {name: n, count: 400, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 64000, memory_mib: 256Gi}
workload:
  generator:
    pods: 100
    arrivals_per_hour: 3600
    shapes:
      - {name: half, gpu_count: 1, gpu_milli: 500, cpu_milli: 1000, memory_mib: 1Gi, duration: 100d}
policies:
)" + policies);
  }
};

TEST_F(NodeSamplingScenario, ReadFromThePlacementMappingOffByDefault) {
  const Scenario sc = load_scenario(scenario(R"(  - {name: all, placement: {preset: best-fit}}
  - {name: half, placement: {preset: best-fit, percentage_of_nodes_to_score: 50}}
  - {name: adaptive, placement: {preset: best-fit, percentage_of_nodes_to_score: 0}}
)"));
  ASSERT_EQ(sc.policies.size(), 3U);
  EXPECT_EQ(sc.policies[0].placement.percentage_of_nodes_to_score, 100);
  EXPECT_EQ(sc.policies[1].placement.percentage_of_nodes_to_score, 50);
  EXPECT_EQ(sc.policies[2].placement.percentage_of_nodes_to_score, 0);
  EXPECT_EQ(sc.policies[1].placement.preset, "best-fit");  // a setting, not a new plugin set
}

TEST_F(NodeSamplingScenario, OutOfRangeOrFractionalIsAnInputError) {
  for (const char* bad : {"101", "-1", "12.5", "half"}) {
    const std::string p = std::string(
                              "  - {name: x, placement: {preset: best-fit, "
                              "percentage_of_nodes_to_score: ") +
                          bad + "}}\n";
    EXPECT_THROW(load_scenario(scenario(p)), InputError) << bad;
  }
}

TEST_F(NodeSamplingScenario, SamplingChangesTheDecisionsAndOffKeepsThem) {
  const Scenario sc =
      load_scenario(scenario(R"(  - {name: all, placement: {preset: best-fit, tie_break: first}, sharing: gpu-share}
  - {name: off, placement: {preset: best-fit, tie_break: first, percentage_of_nodes_to_score: 100}, sharing: gpu-share}
  - {name: adaptive, placement: {preset: best-fit, tie_break: first, percentage_of_nodes_to_score: 0}, sharing: gpu-share}
)"));
  const RunResult all = run_policy(sc, sc.policies[0]);
  const RunResult off = run_policy(sc, sc.policies[1]);
  const RunResult adaptive = run_policy(sc, sc.policies[2]);
  ASSERT_EQ(all.pods.size(), 100U);
  for (size_t i = 0; i < all.pods.size(); ++i) {
    EXPECT_EQ(off.pods[i].node, all.pods[i].node) << i;
    // Scoring all nodes packs pods 2k and 2k+1 onto node k.
    EXPECT_EQ(all.pods[i].node, static_cast<int32_t>(i / 2)) << i;
  }
  // Adaptive over 400 nodes: 50 − 400/125 = 47%, 188 nodes. Pod 0 scans from node 0 and takes
  // it; node 188 cancels the scan, so pod 1 scans from 188 to 375 (node 0 not among them), all
  // empty: the first, 188. Pod 2 scans from 376 around to 163: node 0 is the fullest there.
  EXPECT_EQ(adaptive.pods[0].node, 0);
  EXPECT_EQ(adaptive.pods[1].node, 188);
  EXPECT_EQ(adaptive.pods[2].node, 0);
  EXPECT_NE(adaptive.placement.find("nodes-to-score=0%"), std::string::npos);
  EXPECT_EQ(all.placement.find("nodes-to-score"), std::string::npos);
}

}  // namespace node_sampling_scenario_test
}  // namespace slicelab
