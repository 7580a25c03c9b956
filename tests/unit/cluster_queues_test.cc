// Pins down quota admission (docs/training-jobs.md#queues) on hand-worked cases: Kueue's
// available quota with borrowing and lending limits, reclaim of borrowed quota, dominant
// resource shares of three queues and the admission order they give; then the engine: a job
// borrowing a lender's idle quota is evicted when the lender's demand returns, losing exactly
// the work since its checkpoint.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/engine/cluster_queues.h"
#include "sim/engine/engine.h"
#include "sim/metrics/bounded_series.h"
#include "sim/metrics/decide_spec.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/job_table.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::quiet_config;

constexpr size_t kG = static_cast<size_t>(QuotaResource::kGpu);
constexpr size_t kC = static_cast<size_t>(QuotaResource::kCpu);

ClusterQueueSpec queue(std::string name, double gpus, std::string cohort = "lab") {
  ClusterQueueSpec q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal[kG] = static_cast<int64_t>(gpus * 1000);
  return q;
}

ClusterQueues::Workload work(uint32_t queue, double gpus, int priority = 0) {
  ClusterQueues::Workload w;
  w.queue = queue;
  w.request[kG] = static_cast<int64_t>(gpus * 1000);
  w.priority = priority;
  return w;
}

std::vector<ClusterQueues::Step> admit(ClusterQueues& q, double now) {
  std::vector<ClusterQueues::Step> steps;
  q.admit(now, steps);
  return steps;
}

bool admitted(const std::vector<ClusterQueues::Step>& steps, uint32_t job) {
  for (const auto& s : steps)
    if (s.job == job && !s.evict) return true;
  return false;
}

// A and B lend each other 4 GPUs. A's 6-GPU job borrows 2 of B's; B's 4-GPU job then finds 2
// and waits until A's job is done, or (reclaim: any) takes its quota back at once.
TEST(ClusterQueues, BorrowsIdleQuotaOfItsCohort) {
  QueueConfig config;
  config.queues = {queue("a", 4), queue("b", 4)};
  ClusterQueues q;
  q.prepare(config, {work(0, 6), work(1, 4)}, 0);
  EXPECT_EQ(q.available(0, QuotaResource::kGpu), 8000);
  q.submit(0, 0, 0);
  EXPECT_TRUE(admitted(admit(q, 0), 0));
  EXPECT_EQ(q.usage(0, QuotaResource::kGpu), 6000);
  EXPECT_EQ(q.available(1, QuotaResource::kGpu), 2000);
  q.submit(1, 1, 10);
  EXPECT_TRUE(admit(q, 10).empty());  // reclaim: never (Kueue's default)
  EXPECT_EQ(q.state(1), ClusterQueues::State::kPending);
  q.finish(0, 50);
  EXPECT_TRUE(admitted(admit(q, 50), 1));
  const auto usage = q.usage_until(100);
  EXPECT_DOUBLE_EQ(usage[0].gpu_s, 6.0 * 50);
  EXPECT_DOUBLE_EQ(usage[0].borrowed_gpu_s, 2.0 * 50);
  EXPECT_DOUBLE_EQ(usage[0].peak_borrowed_gpus, 2.0);
  EXPECT_DOUBLE_EQ(usage[1].waiting_s, 40.0);  // 10 .. 50
  EXPECT_DOUBLE_EQ(usage[1].gpu_s, 4.0 * 50);
}

TEST(ClusterQueues, ReclaimEvictsTheNewestBorrowerOnly) {
  QueueConfig config;
  config.queues = {queue("a", 4), queue("b", 4)};
  config.queues[1].reclaim = ReclaimPolicy::kAny;
  ClusterQueues q;
  // a0 (3 GPUs) and a1 (2) and a2 (2): A uses 7, borrowing 3; B's 4-GPU job b reclaims. The
  // candidates, newest first, are a2 then a1; removing a2 leaves 8 - 5 = 3 free, a1 too 5:
  // b fits; put back a2 (the one not last): 3 free, b does not fit, so both go.
  q.prepare(config, {work(0, 3), work(0, 2), work(0, 2), work(1, 4)}, 0);
  for (uint32_t j = 0; j < 3; ++j) q.submit(j, j, 0);
  EXPECT_EQ(admit(q, 0).size(), 3U);
  q.submit(3, 3, 5);
  const auto steps = admit(q, 5);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_TRUE(steps[0].evict);
  EXPECT_EQ(steps[0].job, 2U);
  EXPECT_TRUE(steps[1].evict);
  EXPECT_EQ(steps[1].job, 1U);
  EXPECT_FALSE(steps[2].evict);
  EXPECT_EQ(steps[2].job, 3U);
  EXPECT_EQ(q.state(1), ClusterQueues::State::kPending);
  EXPECT_EQ(q.usage(0, QuotaResource::kGpu), 3000);  // within its nominal 4: no more reclaim
  const auto usage = q.usage_until(5);
  EXPECT_EQ(usage[0].reclaimed, 2U);
  EXPECT_EQ(usage[1].reclaims, 1U);
}

TEST(ClusterQueues, ReclaimTakesOnlyWhatOneBorrowerFrees) {
  QueueConfig config;
  config.queues = {queue("a", 4), queue("b", 4)};
  config.queues[1].reclaim = ReclaimPolicy::kAny;
  ClusterQueues q;
  // a0 (4) and a1 (3): A borrows 3; B's 1-GPU job b needs 1 of the 1 free: it fits without
  // reclaim. B's next, 3 GPUs, needs a1 gone: only a1 (newest) is evicted.
  q.prepare(config, {work(0, 4), work(0, 3), work(1, 1), work(1, 3)}, 0);
  q.submit(0, 0, 0);
  q.submit(1, 1, 0);
  EXPECT_EQ(admit(q, 0).size(), 2U);
  q.submit(2, 2, 1);
  EXPECT_TRUE(admitted(admit(q, 1), 2));
  q.submit(3, 3, 2);
  const auto steps = admit(q, 2);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_TRUE(steps[0].evict);
  EXPECT_EQ(steps[0].job, 1U);
  EXPECT_EQ(steps[1].job, 3U);
}

TEST(ClusterQueues, LowerPriorityReclaimSparesEqualPriority) {
  QueueConfig config;
  config.queues = {queue("a", 4), queue("b", 4)};
  config.queues[1].reclaim = ReclaimPolicy::kLowerPriority;
  ClusterQueues q;
  q.prepare(config, {work(0, 8, 5), work(1, 4, 5), work(1, 4, 6)}, 0);
  q.submit(0, 0, 0);
  EXPECT_EQ(admit(q, 0).size(), 1U);
  q.submit(1, 1, 1);
  EXPECT_TRUE(admit(q, 1).empty());  // same priority: not a candidate
  q.submit(2, 2, 2);
  const auto steps = admit(q, 2);  // priority 6 > 5: reclaims, and the freed quota admits both
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_TRUE(steps[0].evict);
  EXPECT_EQ(steps[0].job, 0U);
  EXPECT_EQ(steps[1].job, 2U);
  EXPECT_EQ(steps[2].job, 1U);
  EXPECT_FALSE(steps[2].evict);
}

// resource_node.go: a borrowing limit caps what a queue takes beyond its nominal quota; a
// lending limit keeps nominal - limit for the lender alone.
TEST(ClusterQueues, BorrowingAndLendingLimits) {
  QueueConfig config;
  config.queues = {queue("a", 4), queue("b", 4)};
  config.queues[0].borrowing_limit[kG] = 1000;
  ClusterQueues q;
  q.prepare(config, {work(0, 6), work(0, 5)}, 0);
  EXPECT_EQ(q.available(0, QuotaResource::kGpu), 5000);
  EXPECT_NE(q.never_admitted(0).find("may never use more than 5 GPUs"), std::string::npos)
      << q.never_admitted(0);
  EXPECT_EQ(q.never_admitted(1), "");

  config.queues[0].borrowing_limit[kG].reset();
  config.queues[1].lending_limit[kG] = 1000;  // B keeps 3 for itself
  ClusterQueues l;
  l.prepare(config, {work(0, 5), work(1, 4)}, 0);
  EXPECT_EQ(l.available(0, QuotaResource::kGpu), 5000);
  EXPECT_EQ(l.available(1, QuotaResource::kGpu), 3000 + 5000);
  l.submit(0, 0, 0);
  EXPECT_TRUE(admitted(admit(l, 0), 0));
  // A took its 4 and B's lent 1: B still has its 3 guaranteed, and nothing more.
  EXPECT_EQ(l.available(1, QuotaResource::kGpu), 3000);
}

// Dominant resource shares of three queues (fair_sharing.go dominantResourceShare): per
// resource, usage above nominal per mille of what the cohort lends; the largest, / weight.
TEST(ClusterQueues, DominantResourceSharesOfThreeQueues) {
  QueueConfig config;
  config.fair_sharing = true;
  // D lends 8 GPUs: 20 lendable in all; 16 CPUs each: 64.
  config.queues = {queue("a", 4), queue("b", 4), queue("c", 4), queue("d", 8)};
  for (auto& s : config.queues) s.nominal[kC] = 16000;
  config.queues[2].weight = 2;
  ClusterQueues q;
  auto wa = work(0, 6);  // 2 GPUs over: 2 x 1000 / 20 = 100; CPU 40: 24 over, 24000 / 64 = 375
  wa.request[kC] = 40000;
  auto wb = work(1, 8);  // 4 GPUs over: 200; CPU 8, under
  wb.request[kC] = 8000;
  auto wc = work(2, 6);  // 2 GPUs over: 100 / weight 2 = 50
  q.prepare(config, {wa, wb, wc}, 0);
  for (uint32_t j = 0; j < 3; ++j) q.submit(j, j, 0);
  EXPECT_EQ(admit(q, 0).size(), 3U);
  const QuotaVector none{};
  EXPECT_DOUBLE_EQ(q.dominant_share(0, none), 375.0);  // its dominant resource is CPU
  EXPECT_DOUBLE_EQ(q.dominant_share(1, none), 200.0);
  EXPECT_DOUBLE_EQ(q.dominant_share(2, none), 50.0);
  EXPECT_DOUBLE_EQ(q.dominant_share(3, none), 0.0);
  config.queues[2].weight = 0;  // borrowing at weight 0: after everyone
  ClusterQueues z;
  z.prepare(config, {wa, wb, wc}, 0);
  for (uint32_t j = 0; j < 3; ++j) z.submit(j, j, 0);
  admit(z, 0);
  EXPECT_EQ(z.dominant_share(2, none), std::numeric_limits<double>::infinity());
}

// One GPU left in the cohort and three borrowing heads: the lowest share after admission wins
// (fair_sharing_iterator.go); without fair sharing, the earliest job.
TEST(ClusterQueues, FairSharingAdmitsTheLowestShareFirst) {
  for (const bool fair : {true, false}) {
    for (const double weight_c : {1.0, 0.25}) {
      QueueConfig config;
      config.fair_sharing = fair;
      config.queues = {queue("a", 4), queue("b", 4), queue("c", 4), queue("d", 4)};
      config.queues[2].weight = weight_c;
      ClusterQueues q;
      // Admitted: A 6, B 5, C 4 of 16. Heads of 1 GPU each, A's first in arrival order. Shares
      // after admission, per mille of 16: A 3/16 -> 187, B 2/16 -> 125, C 1/16 -> 62 (weight
      // 1/4: 250).
      q.prepare(config, {work(0, 6), work(1, 5), work(2, 4), work(0, 1), work(1, 1), work(2, 1)},
                0);
      for (uint32_t j = 0; j < 3; ++j) q.submit(j, j, 0);
      EXPECT_EQ(admit(q, 0).size(), 3U);
      for (uint32_t j = 3; j < 6; ++j) q.submit(j, j, 1);
      const auto steps = admit(q, 1);
      ASSERT_EQ(steps.size(), 1U);
      const uint32_t expected = !fair ? 3 : weight_c == 1.0 ? 5 : 4;
      EXPECT_EQ(steps[0].job, expected) << "fair " << fair << " weight " << weight_c;
    }
  }
}

TEST(ClusterQueues, StrictFifoHeadBlocksBestEffortPassesIt) {
  for (const auto strategy : {QueueingStrategy::kStrictFifo, QueueingStrategy::kBestEffortFifo}) {
    QueueConfig config;
    config.queues = {queue("a", 4, "")};
    config.queues[0].strategy = strategy;
    ClusterQueues q;
    q.prepare(config, {work(0, 3), work(0, 2), work(0, 1)}, 0);
    for (uint32_t j = 0; j < 3; ++j) q.submit(j, j, 0);
    const auto steps = admit(q, 0);
    // 3 fits; 2 does not (1 left); 1 does, but only best-effort FIFO looks past 2.
    EXPECT_EQ(steps.size(), strategy == QueueingStrategy::kStrictFifo ? 1U : 2U);
  }
}

// The engine: two nodes of four GPUs; queues A and B of four GPUs each lend to each other, B
// reclaims. A's a1 and a2 take all eight (a2 borrows B's four); B's b arrives at 10 and takes
// its quota back: a2 is evicted, having done 9 s, saved at 5 s (checkpoint every 5 s): 4 s x 4
// GPUs lost. a2 is admitted again when a1 ends at 100 and runs its remaining 95 s.
TEST(SimQueues, ReclaimWhenTheLendersDemandReturns) {
  const ClusterSpec cluster = cluster_of({node_group("n", 2, "A100-80GB", 4)});
  std::vector<JobSpec> specs(3);
  const char* names[] = {"a1", "a2", "b"};
  const double arrivals[] = {0, 1, 10};
  const char* queues[] = {"a", "a", "b"};
  for (size_t i = 0; i < 3; ++i) {
    specs[i].name = names[i];
    specs[i].arrival_s = arrivals[i];
    specs[i].duration_s = 100;
    specs[i].worker.gpu_count = 4;
    specs[i].queue = queues[i];
    specs[i].checkpoint_s = 5;
  }
  std::vector<PodSpec> pods;
  JobTable jobs;
  expand_jobs(
      specs, [](const ModelList&) { return 4; }, pods, jobs);
  EngineConfig config = quiet_config();
  config.sample_interval_s = 60;
  config.queues.queues = {queue("a", 4), queue("b", 4)};
  config.queues.queues[1].reclaim = ReclaimPolicy::kAny;
  SharingConfig sharing;
  sharing.kind = "whole-card";
  const auto mode = make_sharing_mode(sharing);
  PlacementPolicy placement = build_placement(*placement_preset("first-fit"));
  RunInputs in{cluster, testing::catalog(), pods, *mode, config, 1};
  in.jobs = &jobs;
  const RunResult r = run_simulation(in, placement);
  ASSERT_EQ(r.jobs.size(), 3U);
  const JobOutcome& a2 = r.jobs[1];
  EXPECT_DOUBLE_EQ(a2.admitted_s, 1.0);
  EXPECT_EQ(a2.reclaimed, 1U);
  EXPECT_DOUBLE_EQ(a2.lost_gpu_s, 4.0 * 4);
  EXPECT_DOUBLE_EQ(a2.start_s, 100.0);
  EXPECT_DOUBLE_EQ(a2.finish_s, 195.0);
  EXPECT_DOUBLE_EQ(r.jobs[2].start_s, 10.0);
  EXPECT_DOUBLE_EQ(r.jobs[2].finish_s, 110.0);
  ASSERT_TRUE(r.summary.preemption);
  EXPECT_EQ(r.summary.preemption->reclaim_victims, 1U);
  ASSERT_EQ(r.summary.queues.size(), 2U);
  const QueueSummary& a = r.summary.queues[0];
  EXPECT_DOUBLE_EQ(a.usage.borrowed_gpu_s, 4.0 * 9);
  EXPECT_EQ(a.usage.reclaimed, 1U);
  EXPECT_EQ(r.summary.queues[1].usage.reclaims, 1U);
  EXPECT_EQ(a.jobs, 2U);
  EXPECT_EQ(a.completed, 2U);
  EXPECT_DOUBLE_EQ(a.fair_share, 0.5);
  // At 60 s: A runs a1 (4 GPUs, within its quota) with a2 waiting; B runs b.
  size_t at_60 = 0;
  for (const QueueSample& s : r.queue_samples) {
    if (s.time_s != 60) continue;
    ++at_60;
    EXPECT_DOUBLE_EQ(s.used_gpus, 4.0);
    EXPECT_DOUBLE_EQ(s.borrowed_gpus, 0.0);
    EXPECT_EQ(s.pending, s.queue == 0 ? 1U : 0U);
    EXPECT_EQ(s.admitted, 1U);
  }
  EXPECT_EQ(at_60, 2U);
}

// Samples past the cap: every other one is dropped and later ones taken half as often, so the
// series stays evenly spaced over the whole run and within its cap.
TEST(BoundedSeries, HalvesAndStaysEvenlySpaced) {
  BoundedSeries<int> series(2, 8);  // 2 rows per sample, at most 8 rows
  for (int n = 0; n < 20; ++n)
    if (series.wants())
      series.take([&](std::vector<int>& rows) {
        rows.push_back(n);
        rows.push_back(n);
      });
  // 20 samples into 4 slots: strides 1, 2, 4, then 8 keeps samples 0 and 8, then 16.
  EXPECT_EQ(series.rows(), (std::vector<int>{0, 0, 8, 8, 16, 16}));
  EXPECT_EQ(series.stride(), 8U);
}

}  // namespace
}  // namespace slicelab

namespace slicelab {
namespace {

// A decide: target naming a queue reads that queue's figures, not the run's.
TEST(QueueDecide, TargetsReadTheNamedQueue) {
  std::string why;
  const auto goal = parse_decide_goal("min jobs.queue_delay_s.p95[queue:product]", why);
  ASSERT_TRUE(goal) << why;
  const auto fair = parse_decide_constraint("queues.fairness[queue:research] >= 0.8", why);
  ASSERT_TRUE(fair) << why;
  EXPECT_FALSE(parse_decide_goal("min completed[queue:product]", why));
  EXPECT_NE(why.find("no per-queue figure"), std::string::npos) << why;

  RunSummary s;
  s.jobs.emplace().queue_delay_s = {.count = 10, .mean = 5, .p50 = 4, .p95 = 100, .p99 = 100};
  QueueSummary product;
  product.name = "product";
  product.queue_delay_s = {.count = 3, .mean = 2, .p50 = 2, .p95 = 7, .p99 = 7};
  QueueSummary research;
  research.name = "research";
  research.fair_share = 0.5;
  research.share_while_waiting = 0.3;
  s.queues = {product, research};
  EXPECT_EQ(goal->value(s), 7.0);
  ASSERT_TRUE(fair->value(s).has_value());
  EXPECT_DOUBLE_EQ(*fair->value(s), 0.6);
  EXPECT_FALSE(fair->met_by(fair->value(s)));
}

}  // namespace
}  // namespace slicelab
