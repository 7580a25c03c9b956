#include "reports/consistency_report.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab {

std::string consistency_summary_line(const ReplayConsistency& c) {
  std::string line =
      fmt::format("as-recorded: {} of {} recorded placements reproduced", c.reproduced, c.recorded);
  if (c.mismatch_count() > 0) {
    std::string reasons;
    for (const auto& [reason, pods] : c.mismatches)
      reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", reason, pods.size());
    line += fmt::format("; {} not ({})", c.mismatch_count(), reasons);
  }
  if (c.unbound > 0) line += fmt::format("; {} pod(s) never bound", c.unbound);
  return line;
}

nlohmann::ordered_json consistency_json(const ReplayConsistency& c) {
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  for (const auto& [reason, pods] : c.mismatches) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (size_t i = 0; i < std::min(pods.size(), kConsistencyListedPods); ++i)
      list.push_back({{"pod", pods[i].pod}, {"node", pods[i].node}, {"detail", pods[i].detail}});
    reasons[reason] = {{"count", pods.size()}, {"pods", std::move(list)}};
  }
  nlohmann::ordered_json j;
  j["format"] = "slicelab.consistency/1";
  j["recorded"] = c.recorded;
  j["reproduced"] = c.reproduced;
  j["mismatches"] = c.mismatch_count();
  j["unbound"] = c.unbound;
  j["reasons"] = std::move(reasons);
  return j;
}

std::string consistency_markdown(const ReplayConsistency& c, const std::string& scenario) {
  std::string md = fmt::format(
      "# Consistency of the as-recorded replay\n\n"
      "The policy `as-recorded` of {} keeps each pod to the node the cluster placed it on. A "
      "recorded placement is reproduced when the replay put the pod there no later than the "
      "cluster "
      "started it "
      "(docs/record-replay.md#consistency).\n\n"
      "| | pods |\n|---|---:|\n"
      "| recorded placements | {} |\n| reproduced | {} |\n| not reproduced | {} |\n"
      "| never bound by the cluster (placed by as-recorded's binpack) | {} |\n",
      scenario, c.recorded, c.reproduced, c.mismatch_count(), c.unbound);
  for (const auto& [reason, pods] : c.mismatches) {
    md += fmt::format("\n## {} ({} pod{})\n\n| pod | recorded node | detail |\n|---|---|---|\n",
                      reason, pods.size(), pods.size() == 1 ? "" : "s");
    for (size_t i = 0; i < std::min(pods.size(), kConsistencyListedPods); ++i)
      md += fmt::format("| {} | {} | {} |\n", pods[i].pod, pods[i].node, pods[i].detail);
    if (pods.size() > kConsistencyListedPods)
      md += fmt::format("\n… and {} more.\n", pods.size() - kConsistencyListedPods);
  }
  return md;
}

}  // namespace slicelab
