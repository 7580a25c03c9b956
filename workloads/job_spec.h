// A training job as traces and scenarios describe it: a worker's request times a worker count,
// with how many workers must start together (a PodGroup's minMember). Expanded into pods by
// expand_jobs (job_table.h); plain value type, validated by the readers that build it.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/pod_spec.h"

namespace slicelab {

// Whether a job may be evicted for others' sake (Alibaba's 2026 spot-GPU trace: job_type HP or
// Spot). Spot jobs run at a lower priority and are the first victims of preemption.
enum class JobTier : uint8_t { kRegular, kSpot };
// A spot job's pods run at their priority minus this: below every regular pod (priorities are
// within +-1,000,000), in their own order among spot pods.
inline constexpr int kSpotPriorityShift = 10'000'000;

// Limits every job reader enforces, so that no trace asks for more than the engine holds.
inline constexpr int kMaxJobWorkers = 100'000;
inline constexpr int64_t kMaxJobs = 2'000'000;

struct JobSpec {
  std::string name;  // unique within a workload
  double arrival_s = 0.0;
  // Solo run time of each worker on its GPUs (every worker of a job runs as long).
  double duration_s = 0.0;
  int workers = 1;  // 1..kMaxJobWorkers
  // 0 = all workers (the whole job is one gang); 1 = no gang (workers start as they fit);
  // else 2..workers.
  int min_member = 0;
  // The request of each worker: GPUs (count or share), memory, CPU, models, class, priority.
  // Its name, arrival and duration are unused (the job's apply).
  PodSpec worker;
  std::string queue;  // empty = the scenario's default queue
  JobTier tier = JobTier::kRegular;
  // Work is saved every this many seconds of progress; an eviction loses what was done since
  // the last save. 0 = never saved (an eviction loses everything).
  double checkpoint_s = 0.0;

  int effective_min_member() const { return min_member == 0 ? workers : min_member; }
};

}  // namespace slicelab
