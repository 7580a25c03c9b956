// Training jobs at scale (issue 31): 100,000 generated jobs (about 400,000 pods: single-GPU jobs,
// multi-GPU pods and gangs of up to 16 workers, a third of them spot) on 1,000 nodes x 8 GPUs,
// with preemption on, under the gang modes that release or never take partial gangs. Target:
// under 10 s per policy on 2 cores. (Mode none with preemption churns: partial gangs hold
// nodes and evict whole running gangs for them; docs/performance.md#training-jobs.)
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_workload.h"
#include "sim/engine/engine.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "workloads/job_table.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

constexpr int kNodes = 1000;
constexpr int kJobs = 100'000;

struct JobWorkload {
  std::vector<PodSpec> pods;
  JobTable jobs;
};

// Deterministic (seed 31). Per job: 45% one GPU, 20% one pod of 2 or 4 GPUs, 35% gangs of 4..16
// workers of 1, 2, 4 or 8 GPUs; lognormal run times around an hour; a third spot (checkpoint
// every 30 min); priorities 0..2. Arrivals are Poisson at about 90% of the GPUs' capacity.
const JobWorkload& bench_jobs() {
  static const JobWorkload w = [] {
    Rng rng(31);
    std::vector<JobSpec> specs(kJobs);
    double gpu_s = 0;
    for (int i = 0; i < kJobs; ++i) {
      JobSpec& j = specs[static_cast<size_t>(i)];
      j.name = "job-" + std::to_string(i);
      const double u = rng.uniform();
      int gpus = 1;
      if (u < 0.45) {
        j.workers = 1;
      } else if (u < 0.65) {
        gpus = rng.uniform() < 0.5 ? 2 : 4;
      } else {
        j.workers = 4 + static_cast<int>(rng.below(13));
        const int pick[] = {1, 2, 4, 8};
        gpus = pick[rng.below(4)];
      }
      j.worker.gpu_count = gpus;
      j.worker.gpu_memory_mib = 20'000;
      j.worker.cpu_milli = 4'000 * gpus;
      j.worker.memory_mib = 16'000 * gpus;
      j.worker.priority = static_cast<int>(rng.below(3));
      j.duration_s =
          std::max(60.0, 3600.0 * std::exp(0.8 * std::sqrt(-2 * std::log1p(-rng.uniform())) *
                                           std::cos(6.283185307 * rng.uniform())));
      if (rng.uniform() < 1.0 / 3) {
        j.tier = JobTier::kSpot;
        j.checkpoint_s = 1800;
      }
      gpu_s += j.duration_s * gpus * j.workers;
      // Four teams, 40/30/20/10% of the jobs, by a hash of the index (the draws above stay as
      // they were without queues).
      const uint32_t h = (static_cast<uint32_t>(i) * 2654435761U) >> 16;
      const uint32_t pct = h % 100;
      j.queue = pct < 40 ? "team-a" : pct < 70 ? "team-b" : pct < 90 ? "team-c" : "team-d";
    }
    // Poisson arrivals offering 90% of 8,000 GPUs.
    const double rate = 0.9 * 8.0 * kNodes / (gpu_s / kJobs);
    double t = 0;
    for (JobSpec& j : specs) {
      t += rng.exponential(1.0 / rate);
      j.arrival_s = t;
    }
    JobWorkload out;
    expand_jobs(
        specs, [](const ModelList&) { return bench::kGpusPerNode; }, out.pods, out.jobs);
    return out;
  }();
  return w;
}

// Kueue-style queues for the four teams: nominal GPU quotas in proportion to their jobs (8,000
// GPUs in all), one cohort lending what each leaves idle, reclaim of lower-priority borrowers,
// fair sharing on.
QueueConfig team_queues() {
  QueueConfig q;
  q.fair_sharing = true;
  const std::pair<const char*, int> teams[] = {
      {"team-a", 3200}, {"team-b", 2400}, {"team-c", 1600}, {"team-d", 800}};
  for (const auto& [name, gpus] : teams) {
    ClusterQueueSpec s;
    s.name = name;
    s.cohort = "org";
    s.nominal[static_cast<size_t>(QuotaResource::kGpu)] = int64_t{gpus} * 1000;
    s.reclaim = ReclaimPolicy::kLowerPriority;
    q.queues.push_back(std::move(s));
  }
  return q;
}

void replay(benchmark::State& state, GangMode gang, bool queues = false) {
  const ClusterSpec cluster = bench::a100_cluster(kNodes);
  const GpuCatalog catalog = GpuCatalog::builtin();
  const JobWorkload& w = bench_jobs();
  SharingConfig sharing;
  sharing.kind = "whole-card";
  const auto mode = make_sharing_mode(sharing);
  EngineConfig cfg;
  cfg.backfill = true;
  cfg.sample_interval_s = 300;
  cfg.gang.mode = gang;
  cfg.preemption = PreemptionPolicy::kLowerPriority;
  if (queues) cfg.queues = team_queues();
  RunResult last;
  for (auto _ : state) {
    PlacementPolicy placement = build_placement(*placement_preset("best-fit"));
    RunInputs in{cluster, catalog, w.pods, *mode, cfg, 7};
    in.jobs = &w.jobs;
    last = run_simulation(in, placement);
    const double ratio = last.summary.allocation_ratio;
    benchmark::DoNotOptimize(ratio);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["pods"] = static_cast<double>(w.pods.size());
  state.counters["jobs_done"] = static_cast<double>(last.summary.jobs->completed);
  state.counters["alloc_ratio"] = last.summary.allocation_ratio;
  state.counters["job_queue_p50_s"] = last.summary.jobs->queue_delay_s.p50;
  state.counters["evicted"] = static_cast<double>(last.summary.preemption->victims);
  state.counters["held_gpu_h"] = last.summary.jobs->gpu_hours_held_waiting;
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
  if (last.summary.queue_totals) {
    state.counters["reclaimed"] = static_cast<double>(last.summary.queue_totals->reclaimed);
    state.counters["admit_wait_mean_s"] = last.summary.queue_totals->admission_wait_s.mean;
  }
}

void BM_JobsAllOrNothing(benchmark::State& s) {
  replay(s, GangMode::kAllOrNothing);
}
void BM_JobsPermit(benchmark::State& s) {
  replay(s, GangMode::kPermit);
}
void BM_QueuedJobsAllOrNothing(benchmark::State& s) {
  replay(s, GangMode::kAllOrNothing, true);
}
void BM_QueuedJobsPermit(benchmark::State& s) {
  replay(s, GangMode::kPermit, true);
}
BENCHMARK(BM_JobsAllOrNothing)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_JobsPermit)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_QueuedJobsAllOrNothing)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_QueuedJobsPermit)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
