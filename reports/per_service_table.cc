#include "reports/per_service_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "reports/aligned_table.h"
#include "reports/report_format.h"

namespace slicelab {
namespace {

std::string latency_cell(const Distribution& d, double Distribution::*member) {
  return d.count == 0 ? "-" : latency(d.*member);
}

}  // namespace

std::string per_service_table(std::span<const RunResult> runs) {
  if (std::all_of(runs.begin(), runs.end(),
                  [](const RunResult& r) { return r.summary.services.empty(); }))
    return "";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"policy", "service", "requests", "p50", "p95", "p99", "in SLO", "SLO met", "lost",
                  "replicas", "peak", "unplaced", "GPU-h/M req"});
  bool outside = false;
  for (const RunResult& r : runs)
    for (const ServiceSummary& v : r.summary.services) {
      const auto per_million = v.gpu_hours_per_million();
      outside = outside || v.outside_checked > 0.01;
      rows.push_back({r.policy, v.name, fmt::format("{:.0f}", v.requests),
                      latency_cell(v.latency_s, &Distribution::p50),
                      latency_cell(v.latency_s, &Distribution::p95),
                      latency_cell(v.latency_s, &Distribution::p99),
                      v.within_slo ? percent(*v.within_slo) : "-",
                      v.slo_met ? (*v.slo_met ? "yes" : "no") : "-",
                      percent(v.lost) + (v.outside_checked > 0.01 ? "+" : ""),
                      fmt::format("{:.1f}", v.replicas_mean), fmt::format("{}", v.replicas_peak),
                      fmt::format("{}", v.unplaced_peak),
                      per_million ? fmt::format("{:.2f}", *per_million) : "-"});
    }
  std::string out =
      "\nper service (latency of served requests; in SLO: answered within the SLO's bound; lost: "
      "dropped or unserved; replicas: ready, time-weighted; peak: most wanted; unplaced: most "
      "wanted but not placed at once):\n" +
      aligned_table(rows, 2);
  if (outside)
    out +=
        "+ more than 1% of its requests met a replica loaded above 0.9, beyond the range the "
        "approximation is checked in (docs/inference-services.md#how-close-the-approximation-is)\n";
  return out;
}

}  // namespace slicelab
