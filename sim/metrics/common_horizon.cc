#include "sim/metrics/common_horizon.h"

#include <algorithm>
#include <vector>

namespace slicelab {

void put_on_common_horizon(std::span<RunSummary* const> summaries) {
  if (summaries.size() < 2) return;  // a run alone keeps its own window
  double start = summaries.front()->window_start_s, end = summaries.front()->window_end_s;
  for (const RunSummary* s : summaries) {
    start = std::min(start, s->window_start_s);
    end = std::max(end, s->window_end_s);
  }
  const double window = std::max(0.0, end - start);
  for (RunSummary* s : summaries) {
    s->cost_window_start_s = start;
    s->cost_window_end_s = end;
    s->gpu_hours_provisioned = 0;
    s->cost_usd = 0;
    // Provisioned = capacity x time: the cluster does not change during a run.
    for (ModelUsage& u : s->per_model) {
      u.gpu_hours_provisioned = static_cast<double>(u.gpus) * window / 3600.0;
      u.cost_usd = u.gpu_hours_provisioned * u.price_per_hour;
      s->gpu_hours_provisioned += u.gpu_hours_provisioned;
      s->cost_usd += u.cost_usd;
    }
  }
}

void put_on_common_horizon(std::span<RunResult> runs) {
  std::vector<RunSummary*> summaries;
  summaries.reserve(runs.size());
  for (RunResult& r : runs) summaries.push_back(&r.summary);
  put_on_common_horizon(summaries);
}

}  // namespace slicelab
