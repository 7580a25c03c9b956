#include "workloads/job_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "workloads/input_error.h"
#include "workloads/input_limits.h"

namespace slicelab {

void JobTable::add(JobInfo job, size_t total_pods) {
  if (job_of_.size() < job.first_pod) job_of_.resize(job.first_pod, kNoJob);
  job_of_.resize(total_pods, kNoJob);
  const auto j = static_cast<uint32_t>(jobs_.size());
  std::fill(job_of_.begin() + job.first_pod, job_of_.begin() + job.first_pod + job.pod_count, j);
  gangs_ = gangs_ || job.gang();
  jobs_.push_back(std::move(job));
}

namespace {

// `part` of `whole` GPUs' worth of `value`, rounded up so that no part asks for nothing.
int64_t share_of(int64_t value, int part, int whole) {
  return (value * part + whole - 1) / whole;
}

}  // namespace

void expand_jobs(std::span<const JobSpec> jobs, const LargestNode& largest,
                 std::vector<PodSpec>& pods, JobTable& table) {
  for (const JobSpec& job : jobs) {
    const int gpus = job.worker.gpu_count;
    const int node = gpus > 1 ? largest(job.worker.allowed_models) : 0;
    // Split only where a node exists that takes a part; else the worker stays whole and is
    // reported as never fitting, as any pod too large for every node is.
    const int per_worker = node > 0 && gpus > node ? (gpus + node - 1) / node : 1;
    const int64_t count = static_cast<int64_t>(job.workers) * per_worker;
    if (static_cast<int64_t>(pods.size()) + count > kMaxPods)
      throw InputError(
          fmt::format("job '{}': the workload would have more than {} pods", job.name, kMaxPods));
    JobInfo info;
    info.name = job.name;
    info.first_pod = static_cast<uint32_t>(pods.size());
    info.pod_count = static_cast<uint32_t>(count);
    info.min_member = static_cast<uint32_t>(job.effective_min_member() * per_worker);
    info.arrival_s = job.arrival_s;
    info.queue = job.queue;
    info.tier = job.tier;
    info.checkpoint_s = job.checkpoint_s;
    info.pods_per_worker = static_cast<uint32_t>(per_worker);
    for (int w = 0; w < job.workers; ++w) {
      for (int k = 0; k < per_worker; ++k) {
        PodSpec pod = job.worker;
        pod.arrival_s = job.arrival_s;
        pod.duration_s = job.duration_s;
        if (job.tier == JobTier::kSpot) pod.priority = job.worker.priority - kSpotPriorityShift;
        if (per_worker == 1) {
          pod.name = fmt::format("{}-{}", job.name, w);
        } else {
          const int part = k + 1 < per_worker ? node : gpus - node * (per_worker - 1);
          pod.name = fmt::format("{}-{}.{}", job.name, w, k);
          pod.gpu_count = part;
          pod.cpu_milli = share_of(job.worker.cpu_milli, part, gpus);
          pod.memory_mib = share_of(job.worker.memory_mib, part, gpus);
        }
        pods.push_back(std::move(pod));
      }
    }
    table.add(std::move(info), pods.size());
  }
}

}  // namespace slicelab
