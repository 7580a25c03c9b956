// The run summary's per-class block (sim/metrics/class_summaries.h) on a hand-built run, its
// seed means (sim/metrics/seed_mean.h) and the class-named figures (sim/metrics/class_metrics.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/metrics/class_metrics.h"
#include "sim/metrics/class_summaries.h"
#include "sim/metrics/decide_spec.h"
#include "sim/metrics/seed_mean.h"

namespace slicelab {
namespace {

PodSpec pod(const char* cls, double arrival, int gpus, int milli) {
  PodSpec p;
  p.workload_class = cls;
  p.arrival_s = arrival;
  p.gpu_count = gpus;
  p.gpu_milli = milli;
  return p;
}

PodOutcome outcome(PodStatus status, double start, double finish, int gpus) {
  PodOutcome o;
  o.status = status;
  o.start_s = start;
  o.finish_s = finish;
  o.gpu_count = static_cast<uint8_t>(gpus);
  return o;
}

// Seven pods of three classes over the window 0..200 s:
//   inference: two half-GPU pods that queued 10 s and 60 s and ran 60 s each (an SLO of 30 s
//     queueing: the first met it, the second not), one still pending at the end (no SLO);
//   training: a two-GPU pod that failed at 50 s, one that started at 50 s and runs at the end,
//     one no node could hold;
//   default: one whole-GPU pod that ran 0..100 s.
struct HandBuiltRun {
  std::vector<PodSpec> pods;
  std::vector<PodOutcome> outcomes;
  HandBuiltRun() {
    pods = {pod("inference", 0, 1, 500), pod("inference", 5, 1, 500), pod("inference", 20, 1, 500),
            pod("training", 0, 2, 1000), pod("training", 0, 2, 1000), pod("training", 0, 2, 1000),
            pod("default", 0, 1, 1000)};
    pods[0].set_slo(30.0, std::nullopt);
    pods[1].set_slo(30.0, std::nullopt);
    outcomes = {
        outcome(PodStatus::kCompleted, 10, 70, 1), outcome(PodStatus::kCompleted, 65, 125, 1),
        outcome(PodStatus::kPending, -1, -1, 0),   outcome(PodStatus::kFailed, 0, 50, 2),
        outcome(PodStatus::kRunning, 50, -1, 2),   outcome(PodStatus::kUnschedulable, -1, -1, 0),
        outcome(PodStatus::kCompleted, 0, 100, 1)};
  }
};

TEST(ClassSummaries, HandBuiltRunByClass) {
  const HandBuiltRun run;
  const std::vector<ClassSummary> c = class_summaries(run.pods, run.outcomes, 0, 200);
  ASSERT_EQ(c.size(), 3U);
  // By name.
  EXPECT_EQ(c[0].workload_class, "default");
  EXPECT_EQ(c[1].workload_class, "inference");
  EXPECT_EQ(c[2].workload_class, "training");

  EXPECT_EQ(c[0].pods, 1U);
  EXPECT_EQ(c[0].completed, 1U);
  EXPECT_DOUBLE_EQ(c[0].jct_s.p99, 100);
  EXPECT_FALSE(c[0].slo_attainment);
  EXPECT_DOUBLE_EQ(c[0].gpu_hours_allocated, 100.0 / 3600);

  const ClassSummary& inf = c[1];
  EXPECT_EQ(inf.pods, 3U);
  EXPECT_EQ(inf.completed, 2U);
  EXPECT_EQ(inf.failed, 0U);
  EXPECT_EQ(inf.unplaced(), 1U);
  // Queueing {10, 60}, JCT {70, 120}: nearest rank.
  EXPECT_EQ(inf.queue_delay_s.count, 2U);
  EXPECT_DOUBLE_EQ(inf.queue_delay_s.p50, 10);
  EXPECT_DOUBLE_EQ(inf.queue_delay_s.p99, 60);
  EXPECT_DOUBLE_EQ(inf.jct_s.p50, 70);
  EXPECT_DOUBLE_EQ(inf.jct_s.p99, 120);
  EXPECT_EQ(inf.slo_pods, 2U);
  EXPECT_EQ(inf.slo_met, 1U);
  ASSERT_TRUE(inf.slo_attainment);
  EXPECT_DOUBLE_EQ(*inf.slo_attainment, 0.5);
  // Two half GPUs for 60 s each.
  EXPECT_DOUBLE_EQ(inf.gpu_hours_allocated, 2 * 0.5 * 60 / 3600);

  const ClassSummary& tr = c[2];
  EXPECT_EQ(tr.pods, 3U);
  EXPECT_EQ(tr.completed, 0U);
  EXPECT_EQ(tr.failed, 1U);
  EXPECT_EQ(tr.unschedulable, 1U);
  EXPECT_EQ(tr.pending_at_end, 0U);
  EXPECT_EQ(tr.unplaced(), 1U);
  // Only the running pod queued (the failed one is left out, as run-wide).
  EXPECT_EQ(tr.queue_delay_s.count, 1U);
  EXPECT_DOUBLE_EQ(tr.queue_delay_s.p99, 50);
  EXPECT_EQ(tr.jct_s.count, 0U);
  // Two GPUs 0..50 s (failed), two GPUs 50..200 s (running at the end of the window).
  EXPECT_DOUBLE_EQ(tr.gpu_hours_allocated, (2 * 50 + 2 * 150) / 3600.0);
}

TEST(ClassSummaries, GpuTimeCountsWithinTheWindowOnly) {
  const HandBuiltRun run;
  const std::vector<ClassSummary> c = class_summaries(run.pods, run.outcomes, 60, 100);
  ASSERT_EQ(c.size(), 3U);
  // inference: 60..70 and 65..100 at half a GPU.
  EXPECT_DOUBLE_EQ(c[1].gpu_hours_allocated, 0.5 * (10 + 35) / 3600);
}

TEST(ClassSummaries, NoneWhenEveryPodIsInTheDefaultClass) {
  std::vector<PodSpec> pods = {pod("default", 0, 1, 1000), pod("default", 1, 1, 1000)};
  std::vector<PodOutcome> outcomes(2, outcome(PodStatus::kCompleted, 1, 2, 1));
  EXPECT_TRUE(class_summaries(pods, outcomes, 0, 10).empty());
  EXPECT_TRUE(class_summaries({}, {}, 0, 10).empty());
}

TEST(ClassSummaries, ClassNamedFiguresReadTheClass) {
  const HandBuiltRun run;
  RunSummary s;
  s.per_class = class_summaries(run.pods, run.outcomes, 0, 200);
  EXPECT_EQ(class_metric_value(*decide_metric("queue_p99"), s, "inference"), 60);
  EXPECT_EQ(class_metric_value(*decide_metric("unplaced"), s, "training"), 1);
  EXPECT_EQ(class_metric_value(*decide_metric("slo"), s, "inference"), 0.5);
  EXPECT_EQ(class_metric_value(*decide_metric("completed"), s, "default"), 1);
  // No value: a class without pods, a figure the class has none of, a row not per class.
  EXPECT_FALSE(class_metric_value(*decide_metric("queue_p99"), s, "batch"));
  EXPECT_FALSE(class_metric_value(*decide_metric("jct_p99"), s, "training"));
  EXPECT_FALSE(class_metric_value(*decide_metric("cost"), s, "inference"));
}

TEST(ClassSummaries, SeedMeansMatchClassesByName) {
  RunSummary a, b;
  ClassSummary inf_a, inf_b, tr_a;
  inf_a.workload_class = inf_b.workload_class = "inference";
  tr_a.workload_class = "training";
  inf_a.pods = inf_b.pods = 4;
  inf_a.completed = 2;
  inf_b.completed = 4;
  inf_a.queue_delay_s = {1, 10, 10, 10, 10, 10};
  inf_b.queue_delay_s = {1, 30, 30, 30, 30, 30};
  inf_a.gpu_hours_allocated = 1;
  inf_b.gpu_hours_allocated = 3;
  tr_a.pods = 2;
  tr_a.failed = 2;
  a.per_class = {inf_a, tr_a};
  b.per_class = {inf_b};
  const std::vector<const RunSummary*> seeds = {&a, &b};
  const RunSummary m = seed_mean(seeds);
  ASSERT_EQ(m.per_class.size(), 2U);
  const ClassSummary& inf = m.per_class[0];
  EXPECT_EQ(inf.workload_class, "inference");
  EXPECT_EQ(inf.pods, 4U);
  EXPECT_EQ(inf.completed, 3U);
  EXPECT_DOUBLE_EQ(inf.queue_delay_s.p99, 20);
  EXPECT_DOUBLE_EQ(inf.gpu_hours_allocated, 2);
  // Only seed a has training pods: its figures are seed a's.
  EXPECT_EQ(m.per_class[1].workload_class, "training");
  EXPECT_EQ(m.per_class[1].pods, 2U);
  EXPECT_EQ(m.per_class[1].failed, 2U);
}

}  // namespace
}  // namespace slicelab
