// Pins down gangs (docs/training-jobs.md): jobs expanded into pods (node-sized splits), and the
// engine's three gang modes on hand-worked cases: all-or-nothing binds a gang whole or not at
// all, none holds partial gangs' GPUs, permit releases them at its timeout and backs off.
#include <gtest/gtest.h>

#include <string>
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

JobSpec job(std::string name, double arrival, double duration, int workers, int gpus) {
  JobSpec j;
  j.name = std::move(name);
  j.arrival_s = arrival;
  j.duration_s = duration;
  j.workers = workers;
  j.worker.gpu_count = gpus;
  return j;
}

struct JobRun {
  std::vector<PodSpec> pods;
  JobTable jobs;
  RunResult result;
  // The outcome of the pod named `name`.
  const PodOutcome& of(std::string_view name) const {
    for (size_t i = 0; i < pods.size(); ++i)
      if (pods[i].name.view() == name) return result.pods[i];
    ADD_FAILURE() << "no pod " << name;
    return result.pods.front();
  }
};

// Plain pods first, then the jobs' pods; first-fit, whole cards, backfill.
JobRun run_jobs(const ClusterSpec& cluster, std::vector<PodSpec> plain,
                const std::vector<JobSpec>& jobs, GangConfig gang) {
  JobRun r;
  r.pods = std::move(plain);
  expand_jobs(
      jobs, [](const ModelList&) { return 4; }, r.pods, r.jobs);
  EngineConfig config = quiet_config();
  config.backfill = true;
  config.gang = gang;
  SharingConfig sharing;
  sharing.kind = "whole-card";
  const auto mode = make_sharing_mode(sharing);
  PlacementPolicy placement = build_placement(*placement_preset("first-fit"));
  RunInputs in{cluster, testing::catalog(), r.pods, *mode, config, 1};
  in.jobs = &r.jobs;
  r.result = run_simulation(in, placement);
  return r;
}

GangConfig mode(GangMode m, double timeout_s = 60, double backoff_s = 20) {
  return GangConfig{m, timeout_s, backoff_s};
}

// Two nodes of four GPUs. `hog` takes two GPUs of node 0 until 100; gang g (two workers of four
// GPUs) arrives at 1 and fits only when hog has gone; `small` (one GPU) at 2 and `later` (four
// GPUs) at 3 fit beside hog.
struct Case {
  ClusterSpec cluster = cluster_of({node_group("n", 2, "A100-80GB", 4)});
  std::vector<PodSpec> plain = {pod("hog", 0, 100).gpus(2), pod("small", 2, 10),
                                pod("later", 3, 10).gpus(4)};
  std::vector<JobSpec> jobs = {job("g", 1, 50, 2, 4)};
};

TEST(SimGang, AllOrNothingBindsTheWholeGangOrNoneOfIt) {
  const Case c;
  const JobRun r = run_jobs(c.cluster, c.plain, c.jobs, mode(GangMode::kAllOrNothing));
  // g's first member would fit node 1, its second nowhere: neither binds, so `later` takes node
  // 1 at its arrival; the gang starts whole when hog leaves.
  EXPECT_DOUBLE_EQ(r.of("small").start_s, 2.0);
  EXPECT_DOUBLE_EQ(r.of("later").start_s, 3.0);
  EXPECT_DOUBLE_EQ(r.of("g-0").start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.of("g-1").start_s, 100.0);
  ASSERT_EQ(r.result.jobs.size(), 1U);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].finish_s, 150.0);
  EXPECT_EQ(r.result.jobs[0].status, PodStatus::kCompleted);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].held_gpu_s, 0.0);
  ASSERT_TRUE(r.result.summary.jobs.has_value());
  EXPECT_DOUBLE_EQ(r.result.summary.jobs->queue_delay_s.max, 99.0);
  EXPECT_DOUBLE_EQ(r.result.summary.jobs->jct_s.max, 149.0);
}

TEST(SimGang, WithoutGangSchedulingAPartialGangHoldsItsGpusAndOthersWait) {
  const Case c;
  const JobRun r = run_jobs(c.cluster, c.plain, c.jobs, mode(GangMode::kNone));
  // g-0 binds node 1 at 1 and holds it, idle, until g-1 binds at 100: `later` waits for the
  // gang to end at 150.
  EXPECT_EQ(r.of("g-0").node, 1);
  EXPECT_DOUBLE_EQ(r.of("g-0").start_s, 100.0);  // its work starts with the gang
  EXPECT_DOUBLE_EQ(r.of("g-1").start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.of("small").start_s, 2.0);
  EXPECT_DOUBLE_EQ(r.of("later").start_s, 150.0);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].held_gpu_s, 99.0 * 4);
  EXPECT_DOUBLE_EQ(r.result.summary.jobs->gpu_hours_held_waiting, 99.0 * 4 / 3600);
  EXPECT_EQ(r.result.jobs[0].gang_timeouts, 0U);
}

TEST(SimGang, PermitReleasesAPartialGangAtItsTimeoutAndBacksOff) {
  const Case c;
  const JobRun r = run_jobs(c.cluster, c.plain, c.jobs, mode(GangMode::kPermit, 30, 20));
  // g-0 holds node 1 from 1; at 31 it is released (30 s x 4 GPUs held) and `later` takes node 1
  // until 41; the gang queues again at 51 (its back-off), g-0 holds node 1 again until 81,
  // released; at 101 both members bind (hog left at 100) and the gang starts.
  EXPECT_DOUBLE_EQ(r.of("later").start_s, 31.0);
  EXPECT_DOUBLE_EQ(r.of("g-0").start_s, 101.0);
  EXPECT_DOUBLE_EQ(r.of("g-1").start_s, 101.0);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].start_s, 101.0);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].finish_s, 151.0);
  EXPECT_EQ(r.result.jobs[0].gang_timeouts, 2U);
  EXPECT_DOUBLE_EQ(r.result.jobs[0].held_gpu_s, 2 * 30.0 * 4);
  EXPECT_EQ(r.result.summary.jobs->gang_timeouts, 2U);
}

TEST(SimGang, PermitWithoutBackOffQueuesTheReleasedMembersAtOnce) {
  const Case c;
  const JobRun r = run_jobs(c.cluster, c.plain, c.jobs, mode(GangMode::kPermit, 30, 0));
  // Released at 31, g-0 is queued before `later` (it arrived first) and takes node 1 again at
  // once: every 30 s until hog leaves at 100, and `later` waits for the gang to end.
  EXPECT_DOUBLE_EQ(r.of("g-0").start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.of("later").start_s, 150.0);
  EXPECT_EQ(r.result.jobs[0].gang_timeouts, 3U);  // at 31, 61, 91
}

TEST(SimGang, AGangLargerThanAnyNodeRunsAsNodeSizedPodsThatStartTogether) {
  // Three nodes of four GPUs; a 10-GPU worker becomes pods of 4, 4 and 2 GPUs.
  const ClusterSpec cluster = cluster_of({node_group("n", 3, "A100-80GB", 4)});
  JobSpec big = job("big", 0, 100, 1, 10);
  big.worker.cpu_milli = 10000;
  big.worker.memory_mib = 1000;
  const JobRun r =
      run_jobs(cluster, {pod("x", 0, 50).gpus(2)}, {big}, mode(GangMode::kAllOrNothing));
  ASSERT_EQ(r.pods.size(), 4U);
  EXPECT_EQ(r.pods[1].name.view(), "big-0.0");
  EXPECT_EQ(r.pods[3].name.view(), "big-0.2");
  EXPECT_EQ(r.pods[1].gpu_count, 4);
  EXPECT_EQ(r.pods[3].gpu_count, 2);
  EXPECT_EQ(r.pods[1].cpu_milli, 4000);
  EXPECT_EQ(r.pods[3].cpu_milli, 2000);
  EXPECT_EQ(r.pods[3].memory_mib, 200);
  EXPECT_EQ(r.jobs[0].min_member, 3U);
  EXPECT_EQ(r.jobs[0].pods_per_worker, 3U);
  // x holds two GPUs of node 0 until 50: the 4-GPU parts need nodes 1 and 2, the 2-GPU part fits
  // beside x, and all three start at 0 on three nodes.
  for (const char* name : {"big-0.0", "big-0.1", "big-0.2"})
    EXPECT_DOUBLE_EQ(r.of(name).start_s, 0.0) << name;
  EXPECT_NE(r.of("big-0.0").node, r.of("big-0.1").node);
  EXPECT_EQ(r.result.jobs[0].status, PodStatus::kCompleted);
}

TEST(SimGang, AGangThatNeedsEveryGpuOfTheClusterStillStarts) {
  // Ten GPUs in all (4 + 4 + 2): a 10-GPU worker's parts (4, 4 and 2) take all of them; the
  // gang's need is the sum of its parts, not min_member times the largest.
  const ClusterSpec cluster =
      cluster_of({node_group("a", 2, "A100-80GB", 4), node_group("b", 1, "A100-80GB", 2)});
  const JobRun r = run_jobs(cluster, {}, {job("big", 0, 10, 1, 10)}, mode(GangMode::kAllOrNothing));
  for (const char* name : {"big-0.0", "big-0.1", "big-0.2"})
    EXPECT_DOUBLE_EQ(r.of(name).start_s, 0.0) << name;
  // Eleven GPUs would be more than the cluster has: never, with the reason.
  const JobRun too_big =
      run_jobs(cluster, {}, {job("big", 0, 10, 1, 11)}, mode(GangMode::kAllOrNothing));
  EXPECT_EQ(too_big.result.jobs[0].status, PodStatus::kUnschedulable);
  EXPECT_NE(too_big.result.reason_of(0).find("and the cluster has 10"), std::string::npos)
      << too_big.result.reason_of(0);
}

TEST(SimGang, AGangSomeOfWhoseMembersNeverFitIsUnschedulableAsAWhole) {
  const ClusterSpec cluster = cluster_of({node_group("n", 2, "A100-80GB", 4)});
  JobSpec g = job("g", 0, 10, 2, 4);
  g.worker.cpu_milli = 1'000'000;  // more CPU than any node has
  const JobRun r = run_jobs(cluster, {}, {g}, mode(GangMode::kAllOrNothing));
  EXPECT_EQ(r.result.pods[0].status, PodStatus::kUnschedulable);
  EXPECT_EQ(r.result.jobs[0].status, PodStatus::kUnschedulable);
  EXPECT_EQ(r.result.summary.jobs->unschedulable, 1U);
}

TEST(SimGang, AJobWithMinMemberBelowItsWorkersStartsWhenEnoughFit) {
  // Three workers of four GPUs on two nodes, min_member 2: two start at 0, the third when one
  // node is free again (it runs on its own once the gang started).
  const ClusterSpec cluster = cluster_of({node_group("n", 2, "A100-80GB", 4)});
  JobSpec g = job("g", 0, 10, 3, 4);
  g.min_member = 2;
  for (const GangMode m : {GangMode::kAllOrNothing, GangMode::kPermit, GangMode::kNone}) {
    const JobRun r = run_jobs(cluster, {}, {g}, mode(m));
    EXPECT_DOUBLE_EQ(r.of("g-0").start_s, 0.0) << to_string(m);
    EXPECT_DOUBLE_EQ(r.of("g-1").start_s, 0.0) << to_string(m);
    EXPECT_DOUBLE_EQ(r.of("g-2").start_s, 10.0) << to_string(m);
    EXPECT_DOUBLE_EQ(r.result.jobs[0].start_s, 0.0) << to_string(m);
    EXPECT_DOUBLE_EQ(r.result.jobs[0].finish_s, 20.0) << to_string(m);
  }
}

TEST(SimGang, ModesAreNamedAsTheScenarioWritesThem) {
  for (const GangMode m : {GangMode::kAllOrNothing, GangMode::kPermit, GangMode::kNone})
    EXPECT_EQ(gang_mode_from_name(to_string(m)), m);
  EXPECT_FALSE(gang_mode_from_name("gang").has_value());
}

}  // namespace
}  // namespace slicelab
