#include "sim/placement/placement_explanation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "sim/placement/placement_policy.h"

namespace slicelab {
namespace {

// Whether `f` keeps `node` for the cycle's pod: its static part, then the rest, as schedule()
// and rejected_by() run it.
bool explain_keeps(const Filter& f, const SchedulingCycle& cycle, NodeId node,
                   std::vector<NodeId>& one) {
  one.assign(1, node);
  f.static_filter(cycle.cluster, StaticShape::of(cycle.req), one);
  if (!one.empty()) f.filter(cycle, one);
  return !one.empty();
}

std::vector<RejectionCount> explain_counted(
    const std::map<std::pair<std::string, std::string>, size_t>& m) {
  std::vector<RejectionCount> out;
  out.reserve(m.size());
  for (const auto& [key, nodes] : m) out.push_back({key.first, key.second, nodes});
  std::stable_sort(out.begin(), out.end(), [](const RejectionCount& a, const RejectionCount& b) {
    return a.nodes > b.nodes;  // then by plugin and reason: the map's order
  });
  return out;
}

std::string explain_units_text(const DeviceChoice& d) {
  if (d.claim_units == d.capacity_units) return "whole GPU";
  return fmt::format("{}/{} of a GPU", d.claim_units, d.capacity_units);
}

}  // namespace

void PlacementExplainer::before(const PlacementPolicy& policy, const SchedulingCycle& cycle) {
  const ClusterState& cluster = cycle.cluster;
  const size_t n = cluster.node_count();
  if (result_.node_names.empty()) {
    result_.placement = policy.describe();
    for (const auto& ws : policy.scorers_)
      result_.scorers.push_back(
          {std::string(ws.scorer->name()), ws.weight, ws.scorer->normalizes()});
    result_.lone_scorer = policy.scorers_.size() == 1;
    result_.picker = std::string(policy.picker_->name());
    result_.tie_break = std::string(tie_break_name(policy.tie_break_));
    result_.node_names.reserve(n);
    for (NodeId i = 0; i < n; ++i) result_.node_names.push_back(cluster.node_name(i));
  }
  // Copies: nothing the explanation does reaches the run's request or its random draws.
  PodRequest req = cycle.req;
  Rng rng = cycle.rng;
  SchedulingCycle c{cluster, req, cycle.pod, cycle.now_s, rng, 0, cycle.sharing};
  AttemptExplanation a;
  a.time_s = cycle.now_s;
  a.sampled = policy.sampling_.active();
  const bool listed = n <= result_.options.node_limit;
  std::vector<const Filter*> filters(policy.run_.filters.begin(), policy.run_.filters.end());
  for (const auto& f : policy.filters_) filters.push_back(f.get());
  std::vector<NodeId> all(n), one;
  std::iota(all.begin(), all.end(), NodeId{0});
  last_totals_.clear();
  for (c.pass = 0;; ++c.pass) {
    PassExplanation p;
    p.pass = c.pass;
    std::vector<NodeVerdicts> nodes(n);
    for (NodeId i = 0; i < n; ++i) nodes[i].node = i;
    std::map<std::pair<std::string, std::string>, size_t> reasons;
    const auto reject = [&](NodeId i, PluginVerdict v) {
      nodes[i].feasible = false;
      if (v.reason.empty()) v.reason = "rejected";
      ++reasons[{v.plugin, v.reason}];
      if (listed) nodes[i].verdicts.push_back(std::move(v));
    };
    // PreFilters in the run's order, each on what the earlier ones kept; the shortcut's narrowing
    // is reported, but the nodes it drops are judged by the filters (they would reject them).
    std::vector<NodeId> set = all;
    for (PreFilter* f : policy.run_.pre_filters) {
      PreFilterStep step{std::string(f->name()), set.size(), 0, f->shortcut()};
      std::vector<NodeId> kept = set;
      if (!f->pre_filter(c, kept)) kept.clear();
      step.after = kept.size();
      p.pre_filters.push_back(step);
      if (step.shortcut) continue;
      for (const NodeId i : set) {
        if (std::binary_search(kept.begin(), kept.end(), i)) {
          if (listed) nodes[i].verdicts.push_back({step.name, true, true, {}, {}});
          continue;
        }
        const Rejection why = f->why_rejected(c, i);
        reject(i, {step.name, true, false, why.reason, why.detail});
      }
      set = std::move(kept);
    }
    // Every filter on every node (not only the first that rejects), as kube-scheduler-simulator
    // shows them.
    for (NodeId i = 0; i < n; ++i)
      for (const Filter* f : filters) {
        if (explain_keeps(*f, c, i, one)) {
          if (listed) nodes[i].verdicts.push_back({std::string(f->name()), false, true, {}, {}});
          continue;
        }
        const Rejection why = f->why_rejected(c, i);
        reject(i, {std::string(f->name()), false, false, why.reason, why.detail});
      }
    std::vector<NodeId> candidates;
    for (NodeId i = 0; i < n; ++i)
      if (nodes[i].feasible) candidates.push_back(i);
    p.feasible = candidates.size();
    p.rejections = explain_counted(reasons);
    if (listed) p.nodes = std::move(nodes);
    if (!candidates.empty()) {
      // Score and NormalizeScore per plugin, then the weighted total as select_host adds it.
      const size_t k = candidates.size();
      std::vector<CandidateScores> scores(k);
      for (size_t i = 0; i < k; ++i) scores[i].node = candidates[i];
      std::vector<int64_t> raw(k), norm(k);
      for (const auto& ws : policy.scorers_) {
        ws.scorer->score(c, candidates, raw);
        norm = raw;
        if (ws.scorer->normalizes()) ws.scorer->normalize_scores(norm);
        const int64_t weight = policy.scorers_.size() == 1 ? 1 : ws.weight;
        for (size_t i = 0; i < k; ++i) {
          scores[i].value.push_back(ws.scorer->score_value(c, raw[i]));
          scores[i].raw.push_back(raw[i]);
          scores[i].normalized.push_back(norm[i]);
          scores[i].total += weight * norm[i];
        }
      }
      std::stable_sort(scores.begin(), scores.end(),
                       [](const CandidateScores& x, const CandidateScores& y) {
                         return x.total > y.total;  // node order among equals (stable)
                       });
      p.top_total = scores.front().total;
      p.tied_at_top = static_cast<size_t>(
          std::count_if(scores.begin(), scores.end(),
                        [&](const CandidateScores& s) { return s.total == p.top_total; }));
      for (const CandidateScores& s : scores) last_totals_.emplace_back(s.node, s.total);
      scores.resize(std::min(k, result_.options.top));
      p.top = std::move(scores);
      a.passes.push_back(std::move(p));
      break;
    }
    a.passes.push_back(std::move(p));
    // No node: the PostFilters decide whether the run takes another pass (they change nothing
    // when asked: MIG's asks for a pass that may re-partition).
    bool again = false;
    for (PostFilter* f : policy.run_.post_filters) again = f->post_filter(c) || again;
    if (!again) break;
  }
  result_.attempts.push_back(std::move(a));
}

void PlacementExplainer::after(const PlacementPolicy& policy, const SchedulingCycle& cycle,
                               std::optional<NodeId> node, std::span<const GpuId> gpus) {
  AttemptExplanation& a = result_.attempts.back();
  a.indexed = policy.last_indexed_;
  a.placed = node.has_value();
  a.node = node;
  const PassExplanation& last = a.passes.back();
  if (!node) {
    if (last.feasible == 0) a.blocked = last.rejections;
    return;
  }
  const ClusterState& cluster = cycle.cluster;
  for (const auto& [n, total] : last_totals_)
    if (n == *node) a.node_in_top_ties = total == last.top_total;
  const GpuId first = cluster.first_gpu(*node);
  for (const GpuId g : gpus.first(static_cast<size_t>(cycle.req.gpu_count)))
    a.device.gpus.push_back(static_cast<int>(g - first));
  a.device.claim_units = cycle.req.claim_units;
  a.device.capacity_units = cluster.capacity_units();
  a.device.gpu_memory_mib = cycle.req.gpu_memory_mib;
}

namespace {

using ExplainJson = nlohmann::ordered_json;

ExplainJson explain_rejections_json(const std::vector<RejectionCount>& rs) {
  ExplainJson out = ExplainJson::array();
  for (const RejectionCount& r : rs)
    out.push_back({{"plugin", r.plugin}, {"reason", r.reason}, {"nodes", r.nodes}});
  return out;
}

}  // namespace

nlohmann::ordered_json explanation_json(const PlacementExplanation& e) {
  ExplainJson j;
  j["format"] = "slicelab.explain/1";
  j["pod"] = e.pod;
  j["pod_index"] = e.pod_index;
  j["outcome"] = e.outcome;
  j["policy"] = e.policy;
  j["placement"] = e.placement;
  ExplainJson scorers = ExplainJson::array();
  for (const ExplainedScorer& s : e.scorers)
    scorers.push_back(
        {{"name", s.name}, {"weight", e.lone_scorer ? 1 : s.weight}, {"normalizes", s.normalizes}});
  j["scorers"] = std::move(scorers);
  j["device_picker"] = e.picker;
  j["tie_break"] = e.tie_break;
  j["nodes"] = e.node_names.size();
  j["nodes_listed"] = e.node_names.size() <= e.options.node_limit;
  j["top"] = e.options.top;
  const auto name = [&](NodeId n) { return e.node_names[n]; };
  ExplainJson attempts = ExplainJson::array();
  for (const AttemptExplanation& a : e.attempts) {
    ExplainJson aj;
    aj["time_s"] = a.time_s;
    aj["placed"] = a.placed;
    aj["node"] = a.node ? ExplainJson(name(*a.node)) : ExplainJson(nullptr);
    aj["indexed"] = a.indexed;
    aj["sampled"] = a.sampled;
    ExplainJson passes = ExplainJson::array();
    for (const PassExplanation& p : a.passes) {
      ExplainJson pj;
      pj["pass"] = p.pass;
      ExplainJson pre = ExplainJson::array();
      for (const PreFilterStep& s : p.pre_filters)
        pre.push_back(
            {{"name", s.name}, {"before", s.before}, {"after", s.after}, {"shortcut", s.shortcut}});
      pj["pre_filters"] = std::move(pre);
      pj["feasible"] = p.feasible;
      pj["rejections"] = explain_rejections_json(p.rejections);
      if (e.node_names.size() <= e.options.node_limit) {
        ExplainJson nodes = ExplainJson::array();
        for (const NodeVerdicts& nv : p.nodes) {
          ExplainJson verdicts = ExplainJson::array();
          for (const PluginVerdict& v : nv.verdicts) {
            ExplainJson vj{{"plugin", v.plugin},
                           {"kind", v.pre_filter ? "pre-filter" : "filter"},
                           {"passed", v.passed}};
            if (!v.passed) {
              vj["reason"] = v.reason;
              vj["detail"] = v.detail;
            }
            verdicts.push_back(std::move(vj));
          }
          nodes.push_back(
              {{"node", name(nv.node)}, {"feasible", nv.feasible}, {"verdicts", verdicts}});
        }
        pj["node_verdicts"] = std::move(nodes);
      }
      if (!p.top.empty()) {
        ExplainJson top = ExplainJson::array();
        for (const CandidateScores& s : p.top) {
          ExplainJson per = ExplainJson::array();
          for (size_t i = 0; i < s.raw.size(); ++i) {
            ExplainJson sj{{"scorer", e.scorers[i].name},
                           {"raw", s.raw[i]},
                           {"normalized", s.normalized[i]},
                           {"weight", e.lone_scorer ? 1 : e.scorers[i].weight}};
            if (s.value[i]) sj["value"] = *s.value[i];
            per.push_back(std::move(sj));
          }
          top.push_back({{"node", name(s.node)}, {"scores", per}, {"total", s.total}});
        }
        pj["top"] = std::move(top);
        pj["tie_break"] = {
            {"rule", e.tie_break}, {"top_total", p.top_total}, {"tied", p.tied_at_top}};
      }
      passes.push_back(std::move(pj));
    }
    aj["passes"] = std::move(passes);
    if (a.placed) {
      aj["chosen"] = {{"node", name(*a.node)},
                      {"among_top_ties", a.node_in_top_ties},
                      {"gpus", a.device.gpus},
                      {"claim_units", a.device.claim_units},
                      {"capacity_units", a.device.capacity_units},
                      {"gpu_memory_mib", a.device.gpu_memory_mib}};
    } else {
      aj["blocked"] = explain_rejections_json(a.blocked);
    }
    attempts.push_back(std::move(aj));
  }
  j["attempts"] = std::move(attempts);
  return j;
}

std::string explanation_text(const PlacementExplanation& e) {
  const auto name = [&](NodeId n) -> const std::string& { return e.node_names[n]; };
  std::string out = fmt::format("pod {} under policy {}: {}\n  placement: {}\n", e.pod, e.policy,
                                e.outcome.empty() ? "?" : e.outcome, e.placement);
  if (e.attempts.empty()) {
    out += "  no scheduling attempt: the pod never reached placement in this run\n";
    return out;
  }
  const bool listed = e.node_names.size() <= e.options.node_limit;
  size_t width = 4;
  for (const std::string& s : e.node_names) width = std::max(width, s.size());
  for (size_t k = 0; k < e.attempts.size(); ++k) {
    const AttemptExplanation& a = e.attempts[k];
    out += fmt::format("\nattempt {} at t={:g}s: {}{}\n", k + 1, a.time_s,
                       a.placed ? "placed on " + name(*a.node) : std::string("not placed"),
                       a.indexed ? " (the run decided on an index; shown: the full pass)" : "");
    for (const PassExplanation& p : a.passes) {
      out += fmt::format("  pass {}\n", p.pass);
      for (const PreFilterStep& s : p.pre_filters) {
        if (s.shortcut && s.after == s.before) continue;  // it narrowed nothing
        out += fmt::format("    pre-filter {}: {} -> {} nodes{}\n", s.name, s.before, s.after,
                           s.shortcut ? " (only nodes freed since the last failed attempt; the "
                                        "others fail as they did)"
                                      : "");
      }
      if (listed) {
        out += fmt::format("    filters per node:\n");
        for (const NodeVerdicts& nv : p.nodes) {
          out += fmt::format("      {:<{}}  {}", name(nv.node), width, nv.feasible ? "fits" : "no");
          std::vector<std::string> parts;
          for (const PluginVerdict& v : nv.verdicts)
            parts.push_back(v.passed ? fmt::format("{}: pass", v.plugin)
                                     : fmt::format("{}: {}{}", v.plugin, v.reason,
                                                   v.detail.empty() ? "" : " (" + v.detail + ")"));
          out += fmt::format("  [{}]\n", fmt::join(parts, "; "));
        }
      }
      std::vector<std::string> counts{
          fmt::format("fits: {} node{}", p.feasible, p.feasible == 1 ? "" : "s")};
      for (const RejectionCount& r : p.rejections)
        counts.push_back(
            fmt::format("{}: {} node{}: {}", r.plugin, r.nodes, r.nodes == 1 ? "" : "s", r.reason));
      out += fmt::format("    filters: {}\n", fmt::join(counts, "; "));
      if (p.top.empty()) continue;
      out += fmt::format("    scores (top {} of {} candidates):\n", p.top.size(), p.feasible);
      std::string head = fmt::format("      {:<{}}", "node", width);
      for (const ExplainedScorer& s : e.scorers)
        head += fmt::format("  {:>24}",
                            fmt::format("{} raw/norm x{}", s.name, e.lone_scorer ? 1 : s.weight));
      out += head + "     total\n";
      for (const CandidateScores& s : p.top) {
        std::string row = fmt::format("      {:<{}}", name(s.node), width);
        for (size_t i = 0; i < s.raw.size(); ++i)
          row += fmt::format(
              "  {:>24}", s.value[i]
                              ? fmt::format("{}/{} ({:g})", s.raw[i], s.normalized[i], *s.value[i])
                              : fmt::format("{}/{}", s.raw[i], s.normalized[i]));
        out += row + fmt::format("  {:>8}\n", s.total);
      }
      out += fmt::format("    tie-break: {} node{} at the top total {}; rule {}{}\n", p.tied_at_top,
                         p.tied_at_top == 1 ? "" : "s", p.top_total, e.tie_break,
                         e.tie_break == "random"  ? " (seeded draw)"
                         : e.tie_break == "first" ? " (lowest node index)"
                                                  : " (seeded node order fixed for the run)");
    }
    if (a.placed) {
      out += fmt::format("  chosen: {}{}\n", name(*a.node),
                         a.node_in_top_ties ? "" : " (not among the top totals above)");
      if (!a.device.gpus.empty())
        out += fmt::format("  device picker {}: GPU{} {} on {}, {} each{}\n", e.picker,
                           a.device.gpus.size() == 1 ? "" : "s", fmt::join(a.device.gpus, ","),
                           name(*a.node), explain_units_text(a.device),
                           a.device.gpu_memory_mib > 0
                               ? fmt::format(", {} MiB of GPU memory", a.device.gpu_memory_mib)
                               : "");
    } else if (a.blocked.empty()) {
      out += "  blocked: the device picker or a reserve plugin refused the node selected\n";
    } else {
      std::vector<std::string> parts;
      for (const RejectionCount& r : a.blocked)
        parts.push_back(fmt::format("{} on {} node{}: {}", r.plugin, r.nodes,
                                    r.nodes == 1 ? "" : "s", r.reason));
      out += fmt::format("  blocked: {}\n", fmt::join(parts, "; "));
    }
  }
  return out;
}

}  // namespace slicelab
