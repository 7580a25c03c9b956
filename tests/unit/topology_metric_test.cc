// The engine's communication-quality metric: for each multi-GPU pod on a node with a known
// topology, the chosen GPUs' pair score over the best the topology offers for that count.
#include <gtest/gtest.h>

#include <vector>

#include "sim/topology/builtin_topologies.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::pod;
using testing::run;

ClusterSpec dgx1() {
  NodeGroup g = node_group("dgx1", 1, "V100-32GB", 8);
  g.topology = builtin_topology("hybrid-cube-mesh-8");
  return cluster_of({g});
}

TEST(TopologyMetric, FirstFitTakesASingleLinkPairTopologyAwareADoubleLink) {
  // first-fit takes GPUs 0 and 1: one NVLink (score 100). The best pair on the hybrid cube
  // mesh has two NVLinks (0-3: 200), so the quality is 100 / 200 = 0.5.
  const std::vector<PodSpec> pods = {pod("train", 0, 100).gpus(2)};
  const RunResult ff = run(dgx1(), pods, "first-fit");
  ASSERT_EQ(ff.summary.communication_quality.count, 1U);
  EXPECT_DOUBLE_EQ(ff.summary.communication_quality.mean, 0.5);
  const RunResult topo = run(dgx1(), pods, "topology-aware");
  ASSERT_EQ(topo.summary.communication_quality.count, 1U);
  EXPECT_DOUBLE_EQ(topo.summary.communication_quality.mean, 1.0);
}

TEST(TopologyMetric, OnlyMultiGpuPodsOnNodesWithATopologyCount) {
  NodeGroup plain = node_group("plain", 1, "V100-32GB", 8);  // no topology
  NodeGroup mesh = node_group("dgx1", 1, "V100-32GB", 8);
  mesh.topology = builtin_topology("hybrid-cube-mesh-8");
  // One-GPU pods never count; the 8-GPU pods fill each node once, and only the one on the
  // node with a topology counts (all 8 GPUs: as good as it gets, 1.0).
  const std::vector<PodSpec> pods = {pod("one", 0, 10), pod("eight-a", 20, 10).gpus(8),
                                     pod("eight-b", 20, 10).gpus(8)};
  const RunResult r = run(cluster_of({plain, mesh}), pods, "first-fit");
  ASSERT_EQ(r.summary.communication_quality.count, 1U);
  EXPECT_DOUBLE_EQ(r.summary.communication_quality.mean, 1.0);
}

}  // namespace
}  // namespace slicelab
