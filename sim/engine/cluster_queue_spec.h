// The queues a scenario declares (its `queues:` block): Kueue's ClusterQueues with nominal
// quotas, cohorts that lend unused quota, queueing strategies, fair-sharing weights and reclaim.
// Plain values, validated by the scenario loader (sim/scenario/queue_yaml.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

// The resources a quota counts, in the units the engine holds them: GPUs in thousandths (a
// pod's gpu_count x gpu_milli: a whole card is 1000, a HAMi or time-sliced share its
// fraction, a MIG pod the share it asked for), CPU in millicores, memory in MiB.
enum class QuotaResource : uint8_t { kGpu, kCpu, kMemory };
inline constexpr size_t kQuotaResources = 3;
using QuotaVector = std::array<int64_t, kQuotaResources>;
using QuotaLimits = std::array<std::optional<int64_t>, kQuotaResources>;
std::string_view to_string(QuotaResource r);  // "gpu", "cpu", "memory"

// Kueue's ClusterQueue.spec.queueingStrategy.
enum class QueueingStrategy : uint8_t {
  // The head blocks the queue until it is admitted.
  kStrictFifo,
  // A head that does not fit is set aside until quota is freed; later workloads are tried.
  kBestEffortFifo,
};
// Kueue's ClusterQueue.spec.preemption.reclaimWithinCohort.
enum class ReclaimPolicy : uint8_t { kNever, kLowerPriority, kAny };

std::string_view to_string(QueueingStrategy s);
std::string_view to_string(ReclaimPolicy r);
std::optional<QueueingStrategy> queueing_strategy_from_name(std::string_view name);
std::optional<ReclaimPolicy> reclaim_policy_from_name(std::string_view name);

struct ClusterQueueSpec {
  std::string name;
  std::string cohort;  // empty: no cohort (it neither lends nor borrows)
  QueueingStrategy strategy = QueueingStrategy::kBestEffortFifo;  // Kueue's default
  // Per resource: none = the queue does not count it (its workloads may use any amount).
  QuotaLimits nominal;
  QuotaLimits borrowing_limit;  // none = may borrow all the cohort lends
  QuotaLimits lending_limit;    // none = lends all its unused nominal quota
  double weight = 1.0;          // fairSharing.weight; 0 = borrows only what no one else wants
  ReclaimPolicy reclaim = ReclaimPolicy::kNever;  // Kueue's default
};

// Contract: names are unique; every job's queue names one of them (or default_queue when it
// names none); limits are >= 0 and set only for resources with a nominal quota.
struct QueueConfig {
  std::vector<ClusterQueueSpec> queues;
  // Kueue's fair sharing (Configuration.fairSharing.enable): within a cohort, the workload
  // whose queue would have the lowest dominant resource share is admitted first.
  bool fair_sharing = false;
  // The queue of jobs that name none; empty: such jobs are not held by any queue.
  std::string default_queue;

  bool empty() const { return queues.empty(); }
  std::optional<size_t> index_of(std::string_view name) const {
    for (size_t i = 0; i < queues.size(); ++i)
      if (queues[i].name == name) return i;
    return std::nullopt;
  }
};

}  // namespace slicelab
