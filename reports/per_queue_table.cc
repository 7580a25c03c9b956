#include "reports/per_queue_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "reports/aligned_table.h"
#include "reports/metric_cells.h"
#include "sim/metrics/run_metrics.h"

namespace slicelab {
namespace {

std::string duration_cell(const Distribution& d, double Distribution::*member) {
  if (d.count == 0) return "-";
  return metric_cell(*find_run_metric("jobs.queue_delay_s.p50"), d.*member, std::nullopt);
}

}  // namespace

std::string per_queue_table(std::span<const RunResult> runs) {
  if (std::all_of(runs.begin(), runs.end(),
                  [](const RunResult& r) { return r.summary.queues.empty(); }))
    return "";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"policy", "queue", "jobs done", "admit wait", "job queue mean", "job queue p95",
                  "GPUs", "share", "fair", "borrowed GPU-h", "reclaimed"});
  for (const RunResult& r : runs)
    for (const QueueSummary& q : r.summary.queues) {
      rows.push_back({r.policy, q.name, fmt::format("{}/{}", q.completed, q.jobs),
                      duration_cell(q.admission_wait_s, &Distribution::mean),
                      duration_cell(q.queue_delay_s, &Distribution::mean),
                      duration_cell(q.queue_delay_s, &Distribution::p95),
                      fmt::format("{:.1f}", q.mean_gpus), fmt::format("{:.0f}%", q.gpu_share * 100),
                      fmt::format("{:.0f}%", q.fair_share * 100),
                      fmt::format("{:.1f}", q.usage.borrowed_gpu_s / 3600.0),
                      fmt::format("{}", q.usage.reclaimed)});
    }
  return "\nper queue (share: mean GPUs of the cohort's nominal quota; fair: its own):\n" +
         aligned_table(rows, 2);
}

}  // namespace slicelab
