#include "sim/metrics/job_summary.h"

#include <vector>

#include "sim/metrics/distribution.h"

namespace slicelab {

JobSummary summarize_jobs(const JobTable& jobs, std::span<const JobOutcome> outcomes) {
  JobSummary s;
  s.jobs = jobs.size();
  std::vector<double> queue, jct;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const JobInfo& job = jobs[j];
    const JobOutcome& o = outcomes[j];
    if (job.gang()) ++s.gangs;
    if (o.start_s >= 0) {
      ++s.started;
      queue.push_back(o.start_s - job.arrival_s);
    }
    if (o.status == PodStatus::kCompleted) {
      ++s.completed;
      jct.push_back(o.finish_s - job.arrival_s);
    }
    if (o.status == PodStatus::kFailed) ++s.failed;
    if (o.status == PodStatus::kUnschedulable) ++s.unschedulable;
    s.gpu_hours_held_waiting += o.held_gpu_s / 3600.0;
    s.gang_timeouts += o.gang_timeouts;
  }
  s.queue_delay_s = distribution_of(queue);
  s.jct_s = distribution_of(jct);
  return s;
}

QueueSummary summarize_queue_jobs(const JobTable& jobs, std::span<const JobOutcome> outcomes,
                                  std::span<const uint32_t> queue_of, uint32_t queue) {
  QueueSummary s;
  std::vector<double> admission, waited, jct;
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (queue_of[j] != queue) continue;
    const JobInfo& job = jobs[j];
    const JobOutcome& o = outcomes[j];
    ++s.jobs;
    if (o.admitted_s >= 0) {
      ++s.admitted;
      admission.push_back(o.admitted_s - job.arrival_s);
    }
    if (o.start_s >= 0) {
      ++s.started;
      waited.push_back(o.start_s - job.arrival_s);
    }
    if (o.status == PodStatus::kCompleted) {
      ++s.completed;
      jct.push_back(o.finish_s - job.arrival_s);
    }
    s.lost_gpu_hours += o.lost_gpu_s / 3600.0;
  }
  s.admission_wait_s = distribution_of(admission);
  s.queue_delay_s = distribution_of(waited);
  s.jct_s = distribution_of(jct);
  return s;
}

}  // namespace slicelab
