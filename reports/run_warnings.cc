#include "reports/run_warnings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace slicelab {

namespace {

// 4732 -> "4,732".
std::string digits_grouped(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string window_words(double seconds) {
  if (seconds >= 2 * 86400.0) return fmt::format("{:.0f} days", seconds / 86400.0);
  if (seconds >= 2 * 3600.0) return fmt::format("{:.0f} hours", seconds / 3600.0);
  if (seconds >= 120.0) return fmt::format("{:.0f} minutes", seconds / 60.0);
  return fmt::format("{:.0f} s", seconds);
}

std::string share_percent(double share) {
  return share >= 0.01 ? fmt::format("{:.1f}%", share * 100) : fmt::format("{:.2f}%", share * 100);
}

bool decided_alike(const RunResult& a, const RunResult& b) {
  if (a.pods.size() != b.pods.size()) return false;
  for (size_t p = 0; p < a.pods.size(); ++p) {
    const PodOutcome& x = a.pods[p];
    const PodOutcome& y = b.pods[p];
    if (x.status != y.status || x.node != y.node || x.start_s != y.start_s ||
        x.gpu_count != y.gpu_count ||
        !std::equal(a.pod_gpus.begin() + x.gpu_begin, a.pod_gpus.begin() + x.gpu_end(),
                    b.pod_gpus.begin() + y.gpu_begin))
      return false;
  }
  return true;
}

std::string listed_names(const std::vector<std::string>& n) {
  if (n.size() == 2) return n[0] + " and " + n[1];
  return fmt::format("{} and {}", fmt::join(n.begin(), n.end() - 1, ", "), n.back());
}

}  // namespace

std::vector<std::string> identical_decision_warnings(std::span<const RunResult> runs) {
  std::vector<std::string> out;
  std::vector<bool> grouped_already(runs.size(), false);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (grouped_already[i] || runs[i].pods.empty()) continue;
    std::vector<std::string> group{runs[i].policy};
    for (size_t j = i + 1; j < runs.size(); ++j)
      if (!grouped_already[j] && decided_alike(runs[i], runs[j])) {
        grouped_already[j] = true;
        group.push_back(runs[j].policy);
      }
    if (group.size() > 1)
      out.push_back(fmt::format("{} made identical placement decisions for all {} pods",
                                listed_names(group), digits_grouped(runs[i].pods.size())));
  }
  return out;
}

std::string inert_weight_warning(const std::string& policy, const PlacementConfig& placement) {
  const auto& scorers = placement.scorers;
  if (scorers.size() == 1) {
    if (scorers[0].second == 1) return "";  // the default: nothing was set that could matter
    return fmt::format("{}: the weight of {} ({}) cannot change a decision: it is the only scorer",
                       policy, scorers[0].first, scorers[0].second);
  }
  if (scorers.size() < 2) return "";
  int64_t g = 0;
  for (const auto& [name, w] : scorers) g = std::gcd(g, w);
  if (g <= 1) return "";
  std::vector<std::string> given, reduced;
  for (const auto& [name, w] : scorers) {
    given.push_back(fmt::format("{} ({})", name, w));
    reduced.push_back(std::to_string(w / g));
  }
  return fmt::format(
      "{}: the weights of {} decide exactly as {}: only their ratios can change a decision", policy,
      listed_names(given), fmt::join(reduced, ":"));
}

std::optional<double> gpu_demand_share(const Scenario& scenario, std::span<const RunResult> runs) {
  if (runs.empty()) return std::nullopt;
  double start = runs.front().summary.window_start_s, end = runs.front().summary.window_end_s;
  for (const RunResult& r : runs) {
    start = std::min(start, r.summary.window_start_s);
    end = std::max(end, r.summary.window_end_s);
  }
  const double capacity = static_cast<double>(scenario.cluster.gpu_count()) * (end - start);
  if (capacity <= 0) return std::nullopt;
  double demand = 0;
  for (const PodSpec& p : scenario.pods)
    demand += p.gpu_count * (p.gpu_milli / 1000.0) * p.duration_s;
  return demand / capacity;
}

std::vector<std::string> run_warnings(const Scenario& scenario, std::span<const RunResult> runs) {
  std::vector<std::string> out;
  if (scenario.engine.fill) return out;
  out = identical_decision_warnings(runs);
  for (const RunResult& r : runs)
    for (const PolicySpec& p : scenario.policies)
      if (p.name == r.policy)
        if (std::string w = inert_weight_warning(p.name, p.placement); !w.empty())
          out.push_back(std::move(w));
  // A property of the workload and cluster, the same for every policy: the trace asks for too
  // little of the cluster for placement to matter.
  if (gpu_demand_share(scenario, runs).value_or(1.0) < kIdleDemandShare) {
    const auto busiest =
        std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
          return a.summary.allocation_ratio < b.summary.allocation_ratio;
        });
    const RunSummary& s = busiest->summary;
    out.push_back(fmt::format(
        "the cluster is nearly idle ({} allocated over {}): the trace is sparse for {} GPUs; for "
        "openb traces use `fill:` (docs/fragmentation.md)",
        share_percent(s.allocation_ratio), window_words(s.window_end_s - s.window_start_s),
        digits_grouped(scenario.cluster.gpu_count())));
  }
  return out;
}

}  // namespace slicelab
