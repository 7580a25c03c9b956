// Pins down the restart policy (engine.restart): the kubelet's back-off sequence and its reset,
// a failed pod's outcome reset as it goes back to the queue, and whole runs where a pod that
// fails out of memory starts once its neighbour has left, with the restarts in the summary.
#include "sim/engine/restart_policy.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/modes/hami/hami_settings.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::pod;

RestartConfig on_failure(double backoff_s = 10, double max_s = 300) {
  RestartConfig c;
  c.policy = RestartKind::kOnFailure;
  c.backoff_s = backoff_s;
  c.max_backoff_s = max_s;
  return c;
}

// A Job controller's replacement pod instead of the kubelet's restart in place.
RestartConfig rescheduled() {
  RestartConfig c = on_failure();
  c.reschedule = true;
  return c;
}

TEST(RestartBackoff, DoublesFromTheFirstDelayUpToTheCap) {
  const RestartConfig c = on_failure();
  // 10 x 2^(k-1): 10, 20, 40, 80, 160, then 320 is capped at 300.
  const std::vector<double> want = {10, 20, 40, 80, 160, 300, 300};
  for (uint32_t k = 1; k <= want.size(); ++k) EXPECT_DOUBLE_EQ(restart_delay_s(c, k), want[k - 1]);
  // Far past any cap: no overflow, still the cap.
  EXPECT_DOUBLE_EQ(restart_delay_s(c, 255), 300.0);
  EXPECT_DOUBLE_EQ(restart_delay_s(c, UINT32_MAX), 300.0);
  // A cap that is not a doubling of the first delay: 3, 6, 12, 24, then 25.
  const RestartConfig odd = on_failure(3, 25);
  EXPECT_DOUBLE_EQ(restart_delay_s(odd, 4), 24.0);
  EXPECT_DOUBLE_EQ(restart_delay_s(odd, 5), 25.0);
}

TEST(RestartBackoff, EachFailureOfAPodWaitsLongerAndAFailureAfterTenQuietMinutesStartsAfresh) {
  RestartPolicy policy(on_failure());
  ArrivalOrder order;
  const std::vector<PodSpec> pods = {pod("a", 0, 1), pod("b", 0, 1)};
  order.prepare(pods, pods.size());
  policy.prepare(pods.size(), order);
  // Pod 0 fails at once each time it is back: 0 -> 10, 10 -> 30, 30 -> 70.
  EXPECT_DOUBLE_EQ(policy.next_restart_s(0, 0), 10.0);
  EXPECT_DOUBLE_EQ(policy.next_restart_s(0, 10), 30.0);
  EXPECT_DOUBLE_EQ(policy.next_restart_s(0, 30), 70.0);
  // Pod 1 has its own streak.
  EXPECT_DOUBLE_EQ(policy.next_restart_s(1, 30), 40.0);
  // 600 s after its last failure is not yet more than 600 s: the streak goes on (80).
  EXPECT_DOUBLE_EQ(policy.next_restart_s(0, 630), 710.0);
  // 601 s after: the kubelet's back-off has expired, the first delay again.
  EXPECT_DOUBLE_EQ(policy.next_restart_s(0, 1311), 1321.0);
  EXPECT_DOUBLE_EQ(policy.next_restart_s(0, 1321), 1341.0);
}

TEST(RestartBackoff, FailedPutsTheRequeueAmongThePodEvents) {
  RestartConfig config = on_failure(5, 300);
  config.reschedule = true;
  RestartPolicy policy(config);
  ArrivalOrder order;
  const std::vector<PodSpec> pods = {pod("a", 0, 1), pod("b", 0, 1), pod("c", 0, 1),
                                     pod("d", 0, 1)};
  order.prepare(pods, pods.size());
  policy.prepare(pods.size(), order);
  PodEvents events;
  events.schedule(0, 7.0);  // a running pod's finish in slot 0
  PodOutcome o;
  o.status = PodStatus::kFailed;
  o.finish_s = 1.0;
  o.failure = FailureCause::kNeighboursMemory;
  EXPECT_FALSE(policy.in_place(o));
  policy.failed(3, o, 9, events);
  const PodEvent* e = events.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind(), PodEvent::kRequeue);
  EXPECT_EQ(e->slot, 3U);  // the pod, not a slot
  EXPECT_DOUBLE_EQ(e->time, 6.0);
  events.cancel(3);  // a slot's cancel never voids a re-queue
  EXPECT_EQ(events.next(), e);
  events.pop();
  ASSERT_NE(events.next(), nullptr);
  EXPECT_EQ(events.next()->kind(), PodEvent::kFinish);
  EXPECT_DOUBLE_EQ(events.next()->time, 7.0);

  // Never: nothing is scheduled and nothing is counted.
  RestartPolicy never(RestartConfig{});
  never.prepare(pods.size(), order);
  PodEvents none;
  EXPECT_FALSE(never.in_place(o));
  never.failed(0, o, 0, none);
  EXPECT_EQ(none.next(), nullptr);
  EXPECT_FALSE(never.counts().has_value());
}

TEST(RestartBackoff, OnlyFailuresARestartCanCureAreRestarted) {
  EXPECT_TRUE(restart_can_cure(FailureCause::kNeighboursMemory));
  EXPECT_TRUE(restart_can_cure(FailureCause::kNeighbourFault));
  EXPECT_TRUE(restart_can_cure(FailureCause::kClientFault));
  EXPECT_FALSE(restart_can_cure(FailureCause::kOverMemoryCap));
  EXPECT_FALSE(restart_can_cure(FailureCause::kInstanceMemory));
  RestartPolicy policy(on_failure());
  ArrivalOrder order;
  const std::vector<PodSpec> pods = {pod("a", 0, 1)};
  order.prepare(pods, pods.size());
  policy.prepare(pods.size(), order);
  PodEvents events;
  PodOutcome o;
  o.status = PodStatus::kFailed;
  o.finish_s = 3.0;
  o.failure = FailureCause::kOverMemoryCap;
  EXPECT_FALSE(policy.in_place(o));
  policy.failed(0, o, 0, events);
  EXPECT_EQ(events.next(), nullptr);
  o.failure = FailureCause::kClientFault;
  EXPECT_TRUE(policy.in_place(o));
  policy.failed(0, o, 0, events);
  ASSERT_NE(events.next(), nullptr);
  EXPECT_DOUBLE_EQ(events.next()->time, 13.0);
}

TEST(RestartBackoff, InPlaceTheRestartIsTheSlotsEvent) {
  RestartPolicy policy(on_failure(5, 300));
  ArrivalOrder order;
  const std::vector<PodSpec> pods = {pod("a", 0, 1), pod("b", 0, 1)};
  order.prepare(pods, pods.size());
  policy.prepare(pods.size(), order);
  PodEvents events;
  PodOutcome o;
  o.status = PodStatus::kFailed;
  o.finish_s = 2.0;
  o.failure = FailureCause::kNeighboursMemory;
  EXPECT_TRUE(policy.in_place(o));
  policy.failed(1, o, 4, events);  // pod 1 in tenant slot 4
  ASSERT_NE(events.next(), nullptr);
  EXPECT_EQ(events.next()->kind(), PodEvent::kRestart);
  EXPECT_EQ(events.next()->slot, 4U);
  EXPECT_DOUBLE_EQ(events.next()->time, 7.0);
  // Counted, the outcome otherwise kept (the engine re-runs the checks).
  policy.restarted_in_place(o);
  EXPECT_EQ(o.restarts, 1);
  EXPECT_EQ(o.status, PodStatus::kFailed);
  EXPECT_EQ(policy.counts()->total, 1U);
  EXPECT_EQ(policy.counts()->pods, 1U);
  events.cancel(4);  // a slot's restart is void once cancelled
  EXPECT_EQ(events.next(), nullptr);
}

TEST(RestartBackoff, RestartedResetsTheOutcomeAndKeepsTheFirstArrivalsRank) {
  RestartPolicy policy(on_failure());
  // Out of arrival order: c (5) arrives first, then a (10), then b (20).
  const std::vector<PodSpec> pods = {pod("a", 10, 1), pod("b", 20, 1), pod("c", 5, 1)};
  ArrivalOrder order;
  order.prepare(pods, pods.size());
  ASSERT_TRUE(order.reordered());
  policy.prepare(pods.size(), order);
  PodOutcome o;
  o.status = PodStatus::kFailed;
  o.failure = FailureCause::kNeighboursMemory;
  o.reason = 3;
  o.start_s = o.finish_s = 12;
  o.node = 1;
  o.gpu_begin = 2;
  o.gpu_count = 1;
  EXPECT_EQ(policy.restarted(0, o), 1U);  // a arrived second
  EXPECT_EQ(o.status, PodStatus::kPending);
  EXPECT_EQ(o.failure, FailureCause::kNone);
  EXPECT_EQ(o.reason, ReasonTable::kNone);
  EXPECT_DOUBLE_EQ(o.start_s, -1.0);
  EXPECT_DOUBLE_EQ(o.finish_s, -1.0);
  EXPECT_EQ(o.node, -1);
  EXPECT_EQ(o.gpu_begin, 2U);  // its room for GPUs stays
  EXPECT_EQ(o.restarts, 1);
  EXPECT_EQ(policy.restarted(0, o), 1U);
  PodOutcome c;
  EXPECT_EQ(policy.restarted(2, c), 0U);
  ASSERT_TRUE(policy.counts().has_value());
  EXPECT_EQ(policy.counts()->total, 3U);
  EXPECT_EQ(policy.counts()->pods, 2U);
  // The outcome's count saturates; the summary's does not.
  o.restarts = UINT8_MAX;
  policy.restarted(0, o);
  EXPECT_EQ(o.restarts, UINT8_MAX);
  EXPECT_EQ(policy.counts()->total, 4U);
}

// One A100-80GB under gpu-share (no memory isolation): a holds 60000 MiB from 0 to 100; b asks
// for 30000 at 5, fits the units (500 + 500) but not the memory (90000 > 81920).
std::vector<PodSpec> memory_contention() {
  return {pod("a", 0, 100).milli(500).gpu_mem(60000), pod("b", 5, 50).milli(500).gpu_mem(30000)};
}

TEST(RestartRun, WithoutAPolicyTheOutOfMemoryPodStaysFailed) {
  const RunResult r =
      testing::run(testing::one_gpu(), memory_contention(), "first-fit", testing::gpu_share());
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[1].restarts, 0);
  EXPECT_FALSE(r.summary.restarts.has_value());
}

TEST(RestartRun, AnOutOfMemoryPodRestartsWithBackoffUntilItsNeighbourHasLeft) {
  // In place and rescheduled alike: b's only GPU is the one it failed on.
  for (const RestartConfig& restart : {on_failure(), rescheduled()}) {
    SCOPED_TRACE(restart.reschedule ? "rescheduled" : "in place");
    EngineConfig config = testing::quiet_config();
    config.restart = restart;
    const RunResult r = testing::run(testing::one_gpu(), memory_contention(), "first-fit",
                                     testing::gpu_share(), config);
    // b fails at 5, 15, 35 and 75 (a holds the memory until 100) and is back at 15, 35, 75 and
    // 5 + 10 + 20 + 40 + 80 = 155, when a has left: it runs 155..205.
    const PodOutcome& b = r.pods[1];
    EXPECT_EQ(b.status, PodStatus::kCompleted);
    EXPECT_EQ(b.restarts, 4);
    EXPECT_DOUBLE_EQ(b.start_s, 155.0);
    EXPECT_DOUBLE_EQ(b.finish_s, 205.0);
    EXPECT_EQ(r.reason_of(1), "");  // its last attempt did not fail
    EXPECT_EQ(testing::gpus_of(r, 1), std::vector<int>{0});
    EXPECT_EQ(r.pods[0].restarts, 0);
    ASSERT_TRUE(r.summary.restarts.has_value());
    EXPECT_EQ(r.summary.restarts->total, 4U);
    EXPECT_EQ(r.summary.restarts->pods, 1U);
    EXPECT_EQ(r.summary.completed, 2U);
    EXPECT_EQ(r.summary.failed, 0U);
    // Queue delay and JCT from its first arrival: 155 - 5 and 205 - 5.
    EXPECT_DOUBLE_EQ(r.summary.queue_delay_s.max, 150.0);
    EXPECT_DOUBLE_EQ(r.summary.jct_s.max, 200.0);
  }
}

// Interposer holds each tenant to its request: a pod that really uses more would fail at every
// restart (the kubelet restarts it in place, under the same limit), so it is not restarted.
TEST(RestartRun, APodOverItsOwnLimitIsNotRestarted) {
  EngineConfig config = testing::quiet_config();
  config.restart = on_failure();
  SharingConfig interposer = testing::gpu_share();
  interposer.kind = "interposer";
  std::vector<PodSpec> pods = {pod("over", 0, 10).milli(500).gpu_mem(20000)};
  pods[0].gpu_memory_used_mib = 30000;
  const RunResult r = testing::run(testing::one_gpu(), pods, "first-fit", interposer, config);
  EXPECT_EQ(r.pods[0].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[0].failure, FailureCause::kOverMemoryCap);
  EXPECT_EQ(r.pods[0].restarts, 0);
  ASSERT_TRUE(r.summary.restarts.has_value());
  EXPECT_EQ(r.summary.restarts->total, 0U);
  EXPECT_DOUBLE_EQ(r.summary.window_end_s, 0.0);  // no crash loop keeps the run going
}

TEST(RestartRun, AlwaysRestartsAFailedPodAsOnFailureDoes) {
  EngineConfig config = testing::quiet_config();
  config.restart = on_failure();
  config.restart.policy = RestartKind::kAlways;
  const RunResult r = testing::run(testing::one_gpu(), memory_contention(), "first-fit",
                                   testing::gpu_share(), config);
  EXPECT_EQ(r.pods[1].restarts, 4);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 205.0);
  EXPECT_EQ(r.pods[0].restarts, 0);  // a completed pod is not started again
}

TEST(RestartRun, APodInItsBackoffWhenTheRunEndsReportsItsLastFailure) {
  EngineConfig config = testing::quiet_config();
  config.restart = on_failure();
  config.until_s = 60;
  const RunResult r = testing::run(testing::one_gpu(), memory_contention(), "first-fit",
                                   testing::gpu_share(), config);
  // Failed at 5, 15 and 35; back at 75, after the end: failed, restarted twice.
  const PodOutcome& b = r.pods[1];
  EXPECT_EQ(b.status, PodStatus::kFailed);
  EXPECT_EQ(b.restarts, 2);
  EXPECT_DOUBLE_EQ(b.finish_s, 35.0);
  EXPECT_EQ(b.failure, FailureCause::kNeighboursMemory);
  EXPECT_NE(r.reason_of(1).find("out of memory"), std::string::npos) << r.reason_of(1);
  EXPECT_EQ(r.summary.restarts->total, 2U);
}

TEST(RestartRun, ARestartedPodQueuesWhereItFirstArrived) {
  // a (500 milli, 60000 MiB) runs 0..100; b (500, 30000) arrives at 5 and fails out of memory;
  // d (500, 1000) arrives at 10 and takes the other half of the units, so b, back at 15, waits;
  // c (500, 1000) arrives at 20 and waits too. The workload is out of arrival order (c before d).
  EngineConfig config = testing::quiet_config();
  config.restart = rescheduled();
  const std::vector<PodSpec> pods = {
      pod("a", 0, 100).milli(500).gpu_mem(60000), pod("b", 5, 50).milli(500).gpu_mem(30000),
      pod("c", 20, 10).milli(500).gpu_mem(1000), pod("d", 10, 190).milli(500).gpu_mem(1000)};
  const RunResult r =
      testing::run(testing::one_gpu(), pods, "first-fit", testing::gpu_share(), config);
  // When a leaves at 100, b (first arrived at 5) goes before c (20): b runs 100..150, c 150..160.
  EXPECT_EQ(r.pods[1].restarts, 1);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 150.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 150.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 160.0);
  EXPECT_DOUBLE_EQ(r.pods[3].start_s, 10.0);
}

// Two A100-80GB on one node under gpu-share, first-fit: a (500 milli, 60000 MiB) runs 0..100 on
// GPU 0; b (500, 30000) arrives at 0, goes to GPU 0 too and fails out of memory (90000 > 81920);
// c (500, 1000) arrives at 20 for 10 s.
std::vector<PodSpec> held_through_backoff() {
  return {pod("a", 0, 100).milli(500).gpu_mem(60000), pod("b", 0, 50).milli(500).gpu_mem(30000),
          pod("c", 20, 10).milli(500).gpu_mem(1000)};
}

TEST(RestartInPlace, AnOutOfMemoryPodKeepsItsGpuAndItsRequestThroughItsBackoff) {
  EngineConfig config = testing::quiet_config();
  config.restart = on_failure();
  const auto two = testing::cluster_of({testing::node_group("n", 1, "A100-80GB", 2)});
  const RunResult r =
      testing::run(two, held_through_backoff(), "first-fit", testing::gpu_share(), config);
  // b stays bound to GPU 0 (its 500 milli held): it restarts there at 10, 30 and 70 (a still
  // holds 60000 MiB) and at 70 + 80 = 150, after a left at 100: it runs 150..200.
  const PodOutcome& b = r.pods[1];
  EXPECT_EQ(b.status, PodStatus::kCompleted);
  EXPECT_EQ(b.restarts, 4);
  EXPECT_DOUBLE_EQ(b.start_s, 150.0);
  EXPECT_DOUBLE_EQ(b.finish_s, 200.0);
  EXPECT_EQ(b.node, 0);
  EXPECT_EQ(testing::gpus_of(r, 1), std::vector<int>{0});
  // GPU 0's units are a's and b's all along, so c goes to GPU 1 and runs alone 20..30.
  EXPECT_EQ(testing::gpus_of(r, 2), std::vector<int>{1});
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 20.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 30.0);
  EXPECT_EQ(r.summary.restarts->total, 4U);

  // Rescheduled, b holds nothing in its back-off: c, at 20, takes GPU 0's free half.
  config.restart = rescheduled();
  const RunResult re =
      testing::run(two, held_through_backoff(), "first-fit", testing::gpu_share(), config);
  EXPECT_EQ(testing::gpus_of(re, 2), std::vector<int>{0});
}

TEST(RestartInPlace, APodInItsBackoffUsesNoneOfItsGpusMemory) {
  // One A100-80GB under gpu-share: a (60000 MiB) runs 0..20; b and c (50000 MiB each) arrive at
  // 1 and 2 and fail. Both stay bound, but a crashed container holds no memory: b, back at 11
  // (a still there) and 31, runs 31..41 beside c in its back-off (50000 in use, not 100000);
  // c fails at 12 and 32 (b runs) and runs 72..82.
  EngineConfig config = testing::quiet_config();
  config.restart = on_failure();
  const std::vector<PodSpec> pods = {pod("a", 0, 20).milli(500).gpu_mem(60000),
                                     pod("b", 1, 10).milli(250).gpu_mem(50000),
                                     pod("c", 2, 10).milli(250).gpu_mem(50000)};
  const RunResult r =
      testing::run(testing::one_gpu(), pods, "first-fit", testing::gpu_share(), config);
  EXPECT_EQ(r.pods[1].restarts, 2);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 31.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 41.0);
  EXPECT_EQ(r.pods[2].restarts, 3);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 72.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 82.0);
}

TEST(RestartInPlace, HamisOvercommitCountsTheBoundPodOnce) {
  // L4 (23034 MiB) at deviceMemoryScaling 2 (46068 MiB admitted): both 12 GiB requests are
  // admitted, and each uses all of its 12 GiB. a runs 0..100; b arrives at 1 and fails (24576 >
  // 23034), stays bound and restarts at 11, 31, 71 and 151: then it alone uses 12288 MiB (were it
  // counted twice, 24576, it would fail again) and runs 151..201.
  auto s = std::make_shared<HamiSettings>();
  s->device_memory_scaling = 2.0;
  SharingConfig hami;
  hami.kind = "hami";
  hami.set_mode_settings(s);
  const std::vector<PodSpec> pods = {pod("a", 0, 100).milli(100).gpu_mem(12288),
                                     pod("b", 1, 50).milli(100).gpu_mem(12288)};
  EngineConfig config = testing::quiet_config();
  config.restart = on_failure();
  const RunResult r = testing::run(testing::cluster_of({testing::node_group("n", 1, "L4", 1)}),
                                   pods, "hami-binpack", hami, config);
  const PodOutcome& b = r.pods[1];
  EXPECT_EQ(b.status, PodStatus::kCompleted) << r.reason_of(1);
  EXPECT_EQ(b.restarts, 4);
  EXPECT_DOUBLE_EQ(b.start_s, 151.0);
  EXPECT_DOUBLE_EQ(b.finish_s, 201.0);
}

}  // namespace
}  // namespace slicelab
