#include "sim/metrics/class_summaries.h"

#include <algorithm>
#include <string_view>

#include "sim/metrics/distribution.h"
#include "sim/metrics/slo_tally.h"

namespace slicelab {

std::vector<std::string> workload_class_names(std::span<const PodSpec> pods) {
  std::vector<std::string> names;
  for (const PodSpec& p : pods)
    if (std::find(names.begin(), names.end(), std::string_view(p.workload_class)) == names.end())
      names.push_back(p.workload_class.str());
  if (names.size() == 1 && names.front() == "default") names.clear();
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<ClassSummary> class_summaries(std::span<const PodSpec> pods,
                                          std::span<const PodOutcome> outcomes,
                                          double window_start_s, double window_end_s) {
  const std::vector<std::string> names = workload_class_names(pods);

  // A few classes: one pass over the pods per class keeps one array of values at a time.
  std::vector<ClassSummary> out;
  out.reserve(names.size());
  std::vector<double> queue, jct;
  for (const std::string& name : names) {
    ClassSummary c;
    c.workload_class = name;
    SloTally slo;
    queue.clear();
    jct.clear();
    for (size_t p = 0; p < pods.size(); ++p) {
      if (std::string_view(pods[p].workload_class) != name) continue;
      const PodOutcome& o = outcomes[p];
      ++c.pods;
      switch (o.status) {
        case PodStatus::kCompleted:
          ++c.completed;
          break;
        case PodStatus::kFailed:
          ++c.failed;
          break;
        case PodStatus::kUnschedulable:
          ++c.unschedulable;
          break;
        case PodStatus::kPending:
          ++c.pending_at_end;
          break;
        case PodStatus::kRunning:
          break;
      }
      slo.add(pods[p], o, window_end_s);
      // The run-wide rules (run_accounting.cc): queueing of pods that started and did not fail,
      // completion time of completed pods.
      if (o.start_s >= 0 && o.status != PodStatus::kFailed)
        queue.push_back(o.start_s - pods[p].arrival_s);
      if (o.status == PodStatus::kCompleted) jct.push_back(o.finish_s - pods[p].arrival_s);
      if (o.start_s >= 0) {
        const double from = std::max(o.start_s, window_start_s);
        const double to = std::min(o.finish_s >= 0 ? o.finish_s : window_end_s, window_end_s);
        if (to > from)
          c.gpu_hours_allocated +=
              static_cast<double>(o.gpu_count) * pods[p].gpu_milli / 1000.0 * (to - from) / 3600.0;
      }
    }
    c.queue_delay_s = distribution_of(queue);
    c.jct_s = distribution_of(jct);
    c.slo_pods = slo.pods;
    c.slo_met = slo.met;
    c.slo_undecided = slo.undecided;
    c.slo_attainment = slo.attainment();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace slicelab
