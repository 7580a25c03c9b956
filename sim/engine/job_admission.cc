// Jobs held by queues (docs/training-jobs.md#queues): a job whose members all arrived waits for
// its queue's quota; once admitted its pods queue for placement; its quota is given back when
// its pods are done, or taken back, with its pods, when another queue reclaims it.
#include <fmt/format.h>

#include <algorithm>

#include "sim/engine/simulation.h"
#include "sim/metrics/job_summary.h"
#include "workloads/input_error.h"

namespace slicelab {

void Simulation::prepare_queues() {
  const JobTable& jobs = *in_.jobs;
  const QueueConfig& config = in_.config.queues;
  std::vector<ClusterQueues::Workload> work(jobs.size());
  for (uint32_t j = 0; j < jobs.size(); ++j) {
    const JobInfo& job = jobs[j];
    const std::string& name = job.queue.empty() ? config.default_queue : job.queue;
    if (name.empty()) continue;  // not held: its pods queue as they arrive
    const auto q = config.index_of(name);
    if (!q)
      throw InputError(
          fmt::format("job '{}' names queue '{}', which queues: does not declare", job.name, name));
    ClusterQueues::Workload& w = work[j];
    w.queue = static_cast<uint32_t>(*q);
    for (uint32_t m = job.first_pod; m < job.first_pod + job.pod_count; ++m) {
      const PodSpec& pod = in_.pods[m];
      // GPUs as the sharing mode counts them: what it claims of a GPU (a whole card for a
      // share under whole-card sharing), or the share asked where the claim is settled at
      // placement (MIG's profile).
      const int64_t claimed =
          static_cast<int64_t>(req_[m].claim_units) * 1000 / std::max(mode_.capacity_units(), 1);
      w.request[static_cast<size_t>(QuotaResource::kGpu)] +=
          static_cast<int64_t>(pod.gpu_count) * std::max<int64_t>(pod.gpu_milli, claimed);
      w.request[static_cast<size_t>(QuotaResource::kCpu)] += pod.cpu_milli;
      w.request[static_cast<size_t>(QuotaResource::kMemory)] += pod.memory_mib;
    }
    w.priority = in_.pods[job.first_pod].priority;
  }
  const double t0 = in_.pods.empty() ? 0.0 : in_.pods[arrival_order_[0]].arrival_s;
  quotas_.prepare(config, std::move(work), t0);
  quotas_start_s_ = t0;
  queue_series_ = BoundedSeries<QueueSample>(config.queues.size(), kMaxQueueSampleRows);
  job_left_.assign(jobs.size(), 0);
  admitted_s_.assign(jobs.size(), -1.0);
  job_reclaims_.assign(jobs.size(), 0);
}

// A pod of a held job that must leave the placement queue untried: its job is not admitted
// (an eviction took it back), or it was queued twice (admitted again while still queued) and
// its other entry placed it.
bool Simulation::held_back(uint32_t p) const {
  const uint32_t j = in_.jobs->job_of(p);
  if (!quotas_.holds(j)) return false;
  return quotas_.state(j) != ClusterQueues::State::kAdmitted ||
         out_[p].status != PodStatus::kPending || out_[p].node >= 0;
}

// Admits what the queues' quota allows now, after evicting what reclaim takes back; the
// admitted jobs' pods queue, and a pass tries them.
void Simulation::admit_queued() {
  bool admitted = false;
  while (quotas_.dirty()) {
    quotas_.admit(now_, steps_);
    for (const ClusterQueues::Step& s : steps_) {
      if (s.evict) {
        evict_job(s.job);
      } else {
        admit_job(s.job);
        admitted = true;
      }
    }
  }
  if (admitted || !evicted_.empty()) schedule_pending();
}

void Simulation::admit_job(uint32_t j) {
  const JobInfo& job = (*in_.jobs)[j];
  if (admitted_s_[j] < 0) admitted_s_[j] = now_;
  uint32_t left = 0;
  const uint64_t seq = gangs_[j].seq;
  for (uint32_t m = job.first_pod; m < job.first_pod + job.pod_count; ++m) {
    const PodOutcome& o = out_[m];
    if (o.status == PodStatus::kCompleted || o.status == PodStatus::kUnschedulable) continue;
    ++left;
    if (o.status == PodStatus::kPending && o.node < 0) queue_.push(m, in_.pods[m].priority, seq);
  }
  job_left_[j] = left;
  if (left == 0) quotas_.finish(j, now_);
}

// Reclaim took its quota back: its running pods are evicted (each losing the work since its
// checkpoint), members bound while waiting for their gang are unbound, and it waits in its
// queue again at its first place.
void Simulation::evict_job(uint32_t j) {
  const JobInfo& job = (*in_.jobs)[j];
  ++job_reclaims_[j];
  GangTable::Job& g = gangs_[j];
  unbind_held(j);
  g.held.clear();
  g.backing_off.clear();
  g.denied_until_s = -1;
  g.gang_started = false;
  ++g.epoch;  // its timers are void
  for (uint32_t m = job.first_pod; m < job.first_pod + job.pod_count; ++m) {
    if (out_[m].status != PodStatus::kRunning) continue;
    ++preemption_.reclaim_victims;
    evict_one(m);
  }
}

// One of a held job's pods is done (completed, or failed for good): the last one gives its
// job's quota back.
void Simulation::job_pod_done(uint32_t p) {
  const uint32_t j = in_.jobs->job_of(p);
  if (!quotas_.holds(j) || quotas_.state(j) != ClusterQueues::State::kAdmitted) return;
  const PodOutcome& o = out_[p];
  if (o.status == PodStatus::kFailed && restarts_.enabled() && restart_can_cure(o.failure)) return;
  if (job_left_[j] > 0 && --job_left_[j] == 0) quotas_.finish(j, now_);
}

std::vector<QueueSummary> Simulation::queue_summaries(std::span<const JobOutcome> jobs) {
  std::vector<QueueSummary> out;
  if (quotas_.empty()) return out;
  const std::vector<QueueUsage> usage = quotas_.usage_until(now_);
  std::vector<uint32_t> queue_of(in_.jobs->size(), ClusterQueues::kNoQueue);
  for (uint32_t j = 0; j < queue_of.size(); ++j) queue_of[j] = quotas_.queue_of(j);
  const double window = now_ - quotas_start_s_;
  for (uint32_t q = 0; q < quotas_.queue_count(); ++q) {
    const ClusterQueueSpec& spec = quotas_.spec(q);
    QueueSummary s = summarize_queue_jobs(*in_.jobs, jobs, queue_of, q);
    s.name = spec.name;
    s.cohort = spec.cohort;
    const auto& nominal = spec.nominal[static_cast<size_t>(QuotaResource::kGpu)];
    s.nominal_gpus = nominal ? static_cast<double>(*nominal) / 1000.0 : 0.0;
    s.fair_share = quotas_.fair_share(q);
    s.usage = usage[q];
    s.mean_gpus = window > 0 ? usage[q].gpu_s / window : 0.0;
    if (s.fair_share > 0) {
      const double cohort_gpus = s.nominal_gpus / s.fair_share;
      s.gpu_share = s.mean_gpus / cohort_gpus;
      if (usage[q].waiting_s > 0)
        s.share_while_waiting = usage[q].share_waiting_s / usage[q].waiting_s;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace slicelab
