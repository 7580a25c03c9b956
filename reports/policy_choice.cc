#include "reports/policy_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reports/report_format.h"

namespace slicelab {
namespace {

bool same(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// <0: a is better on `g`, >0: b is, 0: tie. No value is worse than any value.
int compare_on(const DecideGoal& g, const RunSummary& a, const RunSummary& b) {
  const auto va = g.value(a), vb = g.value(b);
  if (!va || !vb) return va ? -1 : (vb ? 1 : 0);
  if (same(*va, *vb)) return 0;
  const bool a_better = g.maximize ? *va > *vb : *va < *vb;
  return a_better ? -1 : 1;
}

std::string words(const std::string& name) {
  std::string out = name;
  std::replace(out.begin(), out.end(), '_', ' ');
  std::replace(out.begin(), out.end(), '.', ' ');
  return out;
}

// "a lower queue p99 (4.5h vs 4.7h)", the first value being `a`'s.
std::string difference(const DecideGoal& g, const RunSummary& a, const RunSummary& b) {
  const auto va = g.value(a), vb = g.value(b);
  const bool higher = va && (!vb || *va > *vb);
  return fmt::format("{} {} ({} vs {})", higher ? "a higher" : "a lower", words(g.metric_text()),
                     metric_phrase_value(*g.metric, va), metric_phrase_value(*g.metric, vb));
}

}  // namespace

std::string metric_phrase_value(const RunMetric& m, std::optional<double> v) {
  if (!v) return "none";
  switch (m.unit) {
    case MetricUnit::kPods:
    case MetricUnit::kCount:
      return count(v);
    case MetricUnit::kShare:
      return percent(v);
    case MetricUnit::kSeconds:
      return duration(v);
    case MetricUnit::kUsd:
      return std::abs(*v) >= 1 ? fmt::format("${:.2f}", *v) : fmt::format("${:.4f}", *v);
    case MetricUnit::kGpuHours:
      return fmt::format("{} GPU-h", figure(*v));
    default:
      return figure(*v);
  }
}

std::string lost_pods_warning(const std::string& policy, const RunSummary& s) {
  const size_t never = s.unschedulable + s.pending_at_end;
  if (s.failed + never == 0) return "";
  std::vector<std::string> causes;
  const auto add = [&](size_t n, const char* what) {
    if (n > 0) causes.push_back(fmt::format("{} {}", n, what));
  };
  add(s.failed_own_memory, "failed out of their own memory");
  add(s.neighbour_failures, "failed because of neighbours");
  add(s.failed_faults, "failed by a fault");
  add(never, "never placed");
  return fmt::format("{} lost {} of {} pods: {}", policy, s.failed + never, s.pods,
                     fmt::join(causes, ", "));
}

PolicyChoice choose_policy(const DecideSpec& spec, std::span<const RunResult> runs) {
  PolicyChoice c;
  std::vector<std::string> goals, limits;
  for (const DecideGoal& g : spec.objective) goals.push_back(g.text());
  for (const DecideConstraint& k : spec.constraints) limits.push_back(k.text());
  c.basis =
      fmt::format("{} by {}{}", spec.stated ? "Decided" : "Decided (default objective)",
                  fmt::join(goals, ", then "),
                  limits.empty() ? "" : fmt::format("; constraints {}", fmt::join(limits, ", ")));
  c.broken.resize(runs.size());
  std::vector<size_t> ok;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const DecideConstraint& k : spec.constraints)
      if (!k.met_by(k.value(runs[i].summary))) c.broken[i].push_back(k.text());
    if (c.broken[i].empty()) ok.push_back(i);
    if (const std::string w = lost_pods_warning(runs[i].policy, runs[i].summary); !w.empty())
      c.warnings.push_back(w);
  }
  const auto better = [&](size_t a, size_t b) {
    for (const DecideGoal& g : spec.objective)
      if (const int d = compare_on(g, runs[a].summary, runs[b].summary); d != 0) return d < 0;
    return false;
  };
  std::stable_sort(ok.begin(), ok.end(), better);
  if (ok.empty()) {
    if (runs.empty()) return c;
    // The constraint broken by the most policies binds (ties: the first written); the closest
    // policy is the one breaking the fewest constraints, best by the objective.
    size_t bind = 0, most = 0;
    for (size_t k = 0; k < spec.constraints.size(); ++k) {
      size_t n = 0;
      for (const auto& b : c.broken)
        n += std::count(b.begin(), b.end(), spec.constraints[k].text()) > 0 ? 1 : 0;
      if (n > most) most = n, bind = k;
    }
    std::vector<size_t> all(runs.size());
    std::iota(all.begin(), all.end(), size_t{0});
    std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) {
      return c.broken[a].size() != c.broken[b].size() ? c.broken[a].size() < c.broken[b].size()
                                                      : better(a, b);
    });
    const DecideConstraint& k = spec.constraints[bind];
    const RunResult& near = runs[all.front()];
    c.text = fmt::format(
        "No policy meets every constraint, so none is recommended: {} binds ({} of {} policies "
        "break it); the closest is {} ({} = {}{}).",
        k.text(), most, runs.size(), near.policy, k.metric_text(),
        metric_phrase_value(*k.metric, k.value(near.summary)),
        c.broken[all.front()].empty()
            ? ""
            : fmt::format(", breaking {}", fmt::join(c.broken[all.front()], ", ")));
    return c;
  }
  c.chosen = ok[0];
  const RunSummary& best = runs[ok[0]].summary;
  std::vector<std::string> figures;
  for (const DecideGoal& g : spec.objective)
    figures.push_back(fmt::format("{} {}", words(g.metric_text()),
                                  metric_phrase_value(*g.metric, g.value(best))));
  c.text = fmt::format("Recommended: {} ({}).", runs[ok[0]].policy, fmt::join(figures, ", "));
  if (ok.size() < 2) {
    if (runs.size() > 1)
      c.text += fmt::format(" It is the only policy that meets {}.", fmt::join(limits, ", "));
    return c;
  }
  c.runner_up = ok[1];
  const RunSummary& second = runs[ok[1]].summary;
  std::vector<std::string> gains;
  std::string loss;
  for (const DecideGoal& g : spec.objective) {
    const int d = compare_on(g, second, best);
    if (d < 0) gains.push_back(difference(g, second, best));
    if (d > 0 && loss.empty()) loss = difference(g, second, best);
  }
  if (loss.empty())
    c.text +=
        fmt::format(" Runner-up: {}, equal on every objective (the scenario's order decides).",
                    runs[ok[1]].policy);
  else if (gains.empty())
    c.text += fmt::format(" Runner-up: {}, with {}.", runs[ok[1]].policy, loss);
  else
    c.text += fmt::format(" Runner-up: {}, which trades {} for {}.", runs[ok[1]].policy, loss,
                          fmt::join(gains, " and "));
  return c;
}

nlohmann::ordered_json PolicyChoice::json(std::span<const RunResult> runs) const {
  nlohmann::ordered_json j;
  j["basis"] = basis;
  j["recommended"] = chosen ? nlohmann::ordered_json(runs[*chosen].policy) : nullptr;
  j["runner_up"] = runner_up ? nlohmann::ordered_json(runs[*runner_up].policy) : nullptr;
  j["text"] = text;
  nlohmann::ordered_json excluded = nlohmann::ordered_json::object();
  for (size_t i = 0; i < runs.size(); ++i)
    if (!broken[i].empty()) excluded[runs[i].policy] = broken[i];
  j["breaks_constraints"] = std::move(excluded);
  j["warnings"] = warnings;
  return j;
}

}  // namespace slicelab
