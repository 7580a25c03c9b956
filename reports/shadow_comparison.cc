#include "reports/shadow_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <unordered_map>

#include "reports/aligned_table.h"

namespace slicelab {
namespace {

const std::string& shadow_pod_id(const std::string& uid, const std::string& pod) {
  return uid.empty() ? pod : uid;
}

std::optional<FragmentationFigures> shadow_fragmentation(
    const std::vector<ShadowFiguresRecord>& figures, double ShadowFiguresRecord::*side) {
  if (figures.empty()) return std::nullopt;
  FragmentationFigures f;
  for (const auto& r : figures) f.mean += r.*side;
  f.mean /= static_cast<double>(figures.size());
  f.last = figures.back().*side;
  return f;
}

std::string shadow_time_text(double s) {
  const auto whole = static_cast<int64_t>(s);
  const std::time_t t = static_cast<std::time_t>(whole);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

ShadowComparison compare_shadow(const ShadowComparisonInput& input, double pending_after_s) {
  ShadowComparison c;
  c.policy = input.policy;
  c.pending_after_s = pending_after_s;
  c.from_s = input.first_s.value_or(0);
  c.to_s = input.last_s.value_or(c.from_s);
  c.starts = input.starts_s.size();
  // The latest decision per pod: after a restart the extender decides again the pods still
  // pending, and it is that decision the cluster's binding is compared with.
  std::unordered_map<std::string, const ShadowDecisionRecord*> decided;
  for (const auto& d : input.decisions) decided[shadow_pod_id(d.uid, d.pod)] = &d;
  std::unordered_map<std::string, const ActualPlacement*> placed;
  for (const auto& p : input.placements) placed.try_emplace(shadow_pod_id(p.uid, p.pod), &p);
  c.decided = decided.size();
  for (const auto& [id, d] : decided) {
    const auto it = placed.find(id);
    const ActualPlacement* p = it == placed.end() ? nullptr : it->second;
    if (p != nullptr && p->at_s < d->at_s) {
      // Bound before this decision was written: only possible for a decision the extender made
      // of a pod it had not yet seen bound; not a comparison of two choices.
      --c.decided;
      continue;
    }
    if (p != nullptr) {
      ++c.bound;
      ++(p->node == d->node ? c.same_node : c.other_node);
    }
    const double waited = (p != nullptr ? p->at_s : c.to_s) - d->at_s;
    if (waited > pending_after_s) {
      ++c.placeable_pending;
      if (p == nullptr) ++c.still_pending;
    }
  }
  c.fragmented_actual =
      shadow_fragmentation(input.figures, &ShadowFiguresRecord::fragmented_gpus_actual);
  c.fragmented_slicelab =
      shadow_fragmentation(input.figures, &ShadowFiguresRecord::fragmented_gpus_slicelab);
  // Each run of the extender counts its drops from 0: the largest figure of each run, summed.
  uint64_t run_max = 0;
  for (const auto& f : input.figures) {
    if (f.after_start) {
      c.dropped += run_max;
      run_max = 0;
    }
    run_max = std::max(run_max, f.dropped);
  }
  c.dropped += run_max;
  return c;
}

nlohmann::ordered_json shadow_comparison_json(const ShadowComparison& c) {
  const auto fragmentation = [](const std::optional<FragmentationFigures>& f) {
    return f ? nlohmann::ordered_json{{"mean", f->mean}, {"last", f->last}}
             : nlohmann::ordered_json(nullptr);
  };
  const std::optional<double> agreement = c.agreement();
  return {{"format", "slicelab.shadow-report/1"},
          {"policy", c.policy},
          {"from", shadow_time_text(c.from_s)},
          {"to", shadow_time_text(c.to_s)},
          {"seconds", c.to_s - c.from_s},
          {"decided", c.decided},
          {"bound", c.bound},
          {"same_node", c.same_node},
          {"other_node", c.other_node},
          {"agreement", agreement ? nlohmann::ordered_json(*agreement) : nullptr},
          {"pending_after_seconds", c.pending_after_s},
          {"placeable_pending", c.placeable_pending},
          {"still_pending", c.still_pending},
          {"fragmented_gpus",
           {{"actual", fragmentation(c.fragmented_actual)},
            {"slicelab", fragmentation(c.fragmented_slicelab)}}},
          {"dropped_decisions", c.dropped},
          {"extender_starts", c.starts}};
}

std::string shadow_comparison_text(const ShadowComparison& c) {
  const double span = c.to_s - c.from_s;
  std::string out = fmt::format(
      "shadow record: policy {}, {} .. {} ({})\n", c.policy, shadow_time_text(c.from_s),
      shadow_time_text(c.to_s),
      span < 7200 ? fmt::format("{:.0f} min", span / 60) : fmt::format("{:.1f} h", span / 3600));
  const std::optional<double> agreement = c.agreement();
  std::vector<std::vector<std::string>> rows = {
      {"figure", "value"},
      {"pods slicelab placed", fmt::format("{}", c.decided)},
      {"  bound by the cluster since", fmt::format("{}", c.bound)},
      {"  on slicelab's node", fmt::format("{}", c.same_node)},
      {"  on another node", fmt::format("{}", c.other_node)},
      {"agreement", agreement ? fmt::format("{:.1f}%", 100 * *agreement) : "-"},
      {fmt::format("placeable, pending over {:g} s", c.pending_after_s),
       fmt::format("{}", c.placeable_pending)},
      {"  still pending at the end", fmt::format("{}", c.still_pending)}};
  const auto frag = [](const std::optional<FragmentationFigures>& f) {
    return f ? fmt::format("{:.2f} (last {:.2f})", f->mean, f->last) : std::string("-");
  };
  rows.push_back({"fragmented GPUs, actual (mean)", frag(c.fragmented_actual)});
  rows.push_back({"fragmented GPUs, slicelab (mean)", frag(c.fragmented_slicelab)});
  rows.push_back({"decisions dropped by the log", fmt::format("{}", c.dropped)});
  out += aligned_table(rows, 1);
  return out;
}

}  // namespace slicelab
