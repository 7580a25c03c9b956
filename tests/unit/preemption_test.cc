// Pins down preemption (docs/training-jobs.md#preemption): kube-scheduler's victim choice on a
// hand-made node and between hand-made candidates, and in the engine an eviction that loses
// exactly the work since the victim's last checkpoint.
#include "sim/engine/preemption.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "sim/engine/engine.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/job_table.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::pod;
using testing::quiet_config;

// A node of 8 GPUs whose pods hold `gpus` each; the pending pod needs `need` GPUs.
struct HandNode {
  std::map<uint32_t, int> gpus;  // pod -> GPUs
  std::map<uint32_t, bool> present;
  int need = 0;
  int free() const {
    int used = 0;
    for (const auto& [pod, g] : gpus)
      if (present.at(pod)) used += g;
    return 8 - used;
  }
};

TEST(Preemption, VictimsAreTheLowerPodsThatCannotBeReprievedMostImportantFirst) {
  // A (priority 1, 4 GPUs), B (2, 2 GPUs), C (5, 2 GPUs), D (10, 0 GPUs: not below the pending
  // pod) fill the node; the pending pod (priority 10) needs 4. All three below it go; C then B
  // come back (still 4 free), A cannot: the only victim.
  HandNode node;
  node.gpus = {{0, 4}, {1, 2}, {2, 2}, {3, 0}};
  for (const auto& [pod, g] : node.gpus) node.present[pod] = true;
  std::vector<PreemptionVictim> pods = {{0, 1, 0}, {1, 2, 5}, {2, 5, 1}, {3, 10, 0}};
  std::vector<uint32_t> order;  // the pods added back, in turn
  const auto set_present = [&](const PreemptionVictim& v, bool present) {
    node.present[v.pod] = present;
    if (present) order.push_back(v.pod);
  };
  const auto fits = [&] { return node.free() >= 4; };
  std::vector<PreemptionVictim> victims;
  ASSERT_TRUE(select_victims(pods, 10, set_present, fits, victims));
  ASSERT_EQ(victims.size(), 1U);
  EXPECT_EQ(victims[0].pod, 0U);
  EXPECT_EQ(order.size(), 4U);  // C, B, A (removed again), then A restored at the end
  EXPECT_EQ(order[0], 2U);
  EXPECT_EQ(order[1], 1U);
  EXPECT_EQ(order[2], 0U);
  for (const auto& [pod, present] : node.present) EXPECT_TRUE(present) << pod;
}

TEST(Preemption, ANodeWhereEvenAllLowerPodsGoingIsNotEnoughIsNoCandidate) {
  HandNode node;
  node.gpus = {{0, 2}, {1, 6}};
  for (const auto& [pod, g] : node.gpus) node.present[pod] = true;
  // Pod 1 (6 GPUs) has the pending pod's priority: only pod 0's two GPUs could be freed.
  std::vector<PreemptionVictim> pods = {{0, 1, 0}, {1, 10, 0}};
  std::vector<PreemptionVictim> victims;
  const auto set_present = [&](const PreemptionVictim& v, bool present) {
    node.present[v.pod] = present;
  };
  const auto fits = [&] { return node.free() >= 4; };
  EXPECT_FALSE(select_victims(pods, 10, set_present, fits, victims));
  EXPECT_TRUE(node.present[0]);
  std::vector<PreemptionVictim> above = {{1, 10, 0}};
  EXPECT_FALSE(select_victims(above, 10, set_present, fits, victims));  // nothing below it
}

TEST(Preemption, TheNodeIsPickedByKubeSchedulersCriteriaInOrder) {
  const std::vector<PreemptionCandidate> c = {
      {0, {{10, 3, 0}}},              // highest victim priority 3: out first
      {1, {{11, 1, 0}, {12, 1, 0}}},  // two victims: out on the sum of priorities
      {2, {{13, 1, 100}}},            // one victim that started at 100
      {3, {{14, 1, 50}}},             // ... at 50: the latest start wins, node 2
  };
  EXPECT_EQ(pick_one_node(c), 2U);
  // Equal on every criterion: the first candidate.
  EXPECT_EQ(pick_one_node(std::vector<PreemptionCandidate>{{5, {{1, 1, 7}}}, {6, {{2, 1, 7}}}}),
            0U);
  // A lower highest priority beats fewer victims.
  EXPECT_EQ(pick_one_node(
                std::vector<PreemptionCandidate>{{5, {{1, 4, 0}}}, {6, {{2, 2, 0}, {3, 1, 0}}}}),
            1U);
}

TEST(Preemption, CandidatesWantedFollowTheSchedulersBounds) {
  EXPECT_EQ(candidates_wanted(50), 50U);
  EXPECT_EQ(candidates_wanted(500), 100U);
  EXPECT_EQ(candidates_wanted(5000), 500U);
  EXPECT_EQ(preemption_policy_from_name("lower-priority"), PreemptionPolicy::kLowerPriority);
  EXPECT_FALSE(preemption_policy_from_name("always").has_value());
}

RunResult run_with_jobs(const ClusterSpec& cluster, std::vector<PodSpec>& pods, JobTable& jobs,
                        const std::vector<JobSpec>& specs) {
  expand_jobs(
      specs, [](const ModelList&) { return 8; }, pods, jobs);
  EngineConfig config = quiet_config();
  config.preemption = PreemptionPolicy::kLowerPriority;
  SharingConfig sharing;
  sharing.kind = "whole-card";
  const auto mode = make_sharing_mode(sharing);
  PlacementPolicy placement = build_placement(*placement_preset("first-fit"));
  RunInputs in{cluster, testing::catalog(), pods, *mode, config, 1};
  in.jobs = &jobs;
  return run_simulation(in, placement);
}

TEST(Preemption, ASpotJobEvictedLosesExactlyTheWorkSinceItsCheckpoint) {
  // One node of 8 GPUs. The spot gang (2 x 4 GPUs, an hour of work, checkpoint every 10 min)
  // starts at 0; a regular 4-GPU job arrives at 1000 s and evicts it: the gang's 1000 s of
  // progress keep the 600 s saved, 400 s x 8 GPUs are lost. It starts again when the regular
  // job ends (1500 s) with 3000 s left.
  const ClusterSpec cluster = cluster_of({node_group("n", 1, "A100-80GB", 8)});
  JobSpec spot;
  spot.name = "spot";
  spot.duration_s = 3600;
  spot.workers = 2;
  spot.worker.gpu_count = 4;
  spot.tier = JobTier::kSpot;
  spot.checkpoint_s = 600;
  JobSpec hp;
  hp.name = "hp";
  hp.arrival_s = 1000;
  hp.duration_s = 500;
  hp.worker.gpu_count = 4;
  std::vector<PodSpec> pods;
  JobTable jobs;
  const RunResult r = run_with_jobs(cluster, pods, jobs, {spot, hp});
  EXPECT_LT(pods[0].priority, pods[2].priority);  // spot runs below every regular pod
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 1000.0);
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 1500.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 4500.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 4500.0);
  ASSERT_TRUE(r.summary.preemption.has_value());
  EXPECT_EQ(r.summary.preemption->preemptors, 1U);
  EXPECT_EQ(r.summary.preemption->victims, 2U);  // both workers of the gang
  EXPECT_EQ(r.summary.preemption->spot_victims, 2U);
  EXPECT_DOUBLE_EQ(r.summary.preemption->lost_gpu_hours, 400.0 * 8 / 3600);
  EXPECT_EQ(r.jobs[0].evicted_pods, 2U);
  EXPECT_DOUBLE_EQ(r.jobs[0].lost_gpu_s, 400.0 * 8);
  EXPECT_DOUBLE_EQ(r.jobs[0].start_s, 0.0);  // queueing ends at its first start
  EXPECT_EQ(r.jobs[0].status, PodStatus::kCompleted);
}

TEST(Preemption, WithoutACheckpointAnEvictedPodStartsOverAndNeverEvictsAHigherPod) {
  // Two single-GPU nodes. low (priority 0) and mid (priority 5) run; high (priority 9) evicts
  // low, the lowest victim; low (all its 300 s of work lost) cannot evict mid, and waits.
  const ClusterSpec cluster = cluster_of({node_group("n", 2, "A100-80GB", 1)});
  std::vector<PodSpec> pods = {pod("low", 0, 1000).priority(0), pod("mid", 0, 2000).priority(5),
                               pod("high", 300, 100).priority(9)};
  JobTable jobs;
  const RunResult r = run_with_jobs(cluster, pods, jobs, {});
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 300.0);
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 400.0);    // after high, on its node
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 1400.0);  // all 1000 s again
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 2000.0);  // never evicted
  EXPECT_DOUBLE_EQ(r.summary.preemption->lost_gpu_hours, 300.0 / 3600);
  EXPECT_EQ(r.summary.preemption->victims, 1U);
}

}  // namespace
}  // namespace slicelab
