// The jobs of a workload once expanded into pods: which pods each job has (contiguous in the
// workload), how many must start together, and the job's queue, tier and checkpoint interval.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "workloads/job_spec.h"
#include "workloads/model_list.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// One job of a run's workload: pods [first_pod, first_pod + pod_count) of the pod list.
struct JobInfo {
  std::string name;
  uint32_t first_pod = 0;
  uint32_t pod_count = 0;
  // Pods that must start together (a PodGroup's minMember); 1: no gang.
  uint32_t min_member = 1;
  double arrival_s = 0.0;
  std::string queue;
  JobTier tier = JobTier::kRegular;
  double checkpoint_s = 0.0;
  // Pods each worker became (more than 1 where a worker asked for more GPUs than any node holds).
  uint32_t pods_per_worker = 1;

  bool gang() const { return min_member > 1; }
};

// Contract: every job's pods are contiguous and in job order after any pods that belong to no
// job; job_of(p) is the job of pod p, or kNoJob. Empty for a workload of plain pods: nothing is
// held per pod then.
class JobTable {
 public:
  static constexpr uint32_t kNoJob = UINT32_MAX;

  bool empty() const { return jobs_.empty(); }
  size_t size() const { return jobs_.size(); }
  const JobInfo& operator[](size_t j) const { return jobs_[j]; }
  std::span<const JobInfo> jobs() const { return jobs_; }
  uint32_t job_of(size_t pod) const { return pod < job_of_.size() ? job_of_[pod] : kNoJob; }
  bool has_gangs() const { return gangs_; }

  // Adds a job whose pods were just appended to the workload: pods [first_pod, first_pod +
  // pod_count). `total_pods` is the workload's pod count after them.
  void add(JobInfo job, size_t total_pods);

 private:
  std::vector<JobInfo> jobs_;
  std::vector<uint32_t> job_of_;  // per pod of the workload; kNoJob for plain pods
  bool gangs_ = false;
};

// The most GPUs one node of the cluster offers to a pod allowed `models` (empty = any model);
// 0 when no node has a GPU it may use.
using LargestNode = std::function<int(const ModelList& models)>;

// Appends each job's pods to `pods` and records the job in `table`: worker w of job "train" is
// pod "train-w". A worker asking for more GPUs than `largest` node offers becomes
// ceil(gpus / largest) pods of `largest` GPUs (the last takes the rest), its CPU and memory
// divided in proportion, all of them gang members where the worker is one ("train-w.k"). A spot
// job's pods take their priority minus kSpotPriorityShift;
// docs/training-jobs.md#gangs-larger-than-a-node. Throws InputError (naming the job) when the
// workload would pass kMaxPods.
void expand_jobs(std::span<const JobSpec> jobs, const LargestNode& largest,
                 std::vector<PodSpec>& pods, JobTable& table);

}  // namespace slicelab
