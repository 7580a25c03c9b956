#include "reports/policy_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reports/report_format.h"
#include "sim/metrics/seed_statistics.h"

namespace slicelab {
namespace {

bool same(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// <0: a is better on `g`, >0: b is, 0: tie. No value is worse than any value.
int compare_values(const DecideGoal& g, std::optional<double> va, std::optional<double> vb) {
  if (!va || !vb) return va ? -1 : (vb ? 1 : 0);
  if (same(*va, *vb)) return 0;
  const bool a_better = g.maximize ? *va > *vb : *va < *vb;
  return a_better ? -1 : 1;
}

int compare_on(const DecideGoal& g, const RunSummary& a, const RunSummary& b) {
  return compare_values(g, g.value(a), g.value(b));
}

std::string words(const std::string& name) {
  std::string out = name;
  std::replace(out.begin(), out.end(), '_', ' ');
  std::replace(out.begin(), out.end(), '.', ' ');
  return out;
}

// "best-fit, random and first-fit"
std::string listed(const std::vector<std::string>& names) {
  if (names.size() < 2) return names.empty() ? "" : names[0];
  return fmt::format("{} and {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
}

// Everything the choice reads: the means for figures, the seeds for noise.
class Ranking {
 public:
  Ranking(const DecideSpec& spec, std::span<const RunResult> means,
          std::span<const SeedSummaries> per_seed)
      : spec_(spec), means_(means), per_seed_(per_seed) {
    seeds_ = per_seed.empty() ? 1 : std::max<size_t>(1, per_seed.front().size());
  }

  size_t seeds() const { return seeds_; }
  const RunSummary& mean(size_t i) const { return means_[i].summary; }
  const std::string& name(size_t i) const { return means_[i].policy; }

  std::vector<std::optional<double>> values(const DecideGoal& g, size_t i) const {
    std::vector<std::optional<double>> v;
    for (const RunSummary* s : per_seed_[i]) v.push_back(g.value(*s));
    return v;
  }

  // In how many seeds run i meets k (out of seeds()).
  size_t seeds_meeting(const DecideConstraint& k, size_t i) const {
    size_t n = 0;
    for (const RunSummary* s : per_seed_[i]) n += k.met_by(k.value(*s)) ? 1 : 0;
    return n;
  }

  // a - b on g, paired seed by seed.
  PairedDifference paired(const DecideGoal& g, size_t a, size_t b) const {
    const auto va = values(g, a), vb = values(g, b);
    return paired_difference(va, vb);
  }

  // Whether a and b differ on g beyond noise. One seed: any difference does (noise unknown). A
  // figure one of them lacks (no pod started) is a difference.
  bool separated(const DecideGoal& g, size_t a, size_t b) const {
    const int d = compare_on(g, mean(a), mean(b));
    if (d == 0) return false;
    if (seeds_ < 2 || !g.value(mean(a)) || !g.value(mean(b))) return true;
    return paired(g, a, b).beyond_noise.value_or(true);
  }

  // Lexicographic on the means (the old rule; the scenario's order breaks exact ties).
  bool better_on_means(size_t a, size_t b) const {
    for (const DecideGoal& g : spec_.objective)
      if (const int d = compare_on(g, mean(a), mean(b)); d != 0) return d < 0;
    return false;
  }

  // "queue p99 4.5h ± 1.2h" (no ± for one seed or none at all).
  std::string figure(const DecideGoal& g, size_t i) const {
    const std::string v = metric_phrase_value(*g.metric, g.value(mean(i)));
    if (seeds_ < 2) return v;
    std::vector<double> xs;
    for (const auto& x : values(g, i))
      if (x) xs.push_back(*x);
    const Estimate e = estimate(xs);
    if (!e.half_width || *e.half_width <= 0 || !g.value(mean(i))) return v;
    // An interval that rounds to nothing at the figure's precision says nothing.
    const std::string noise = noise_phrase(*g.metric, *e.half_width);
    if (noise == noise_phrase(*g.metric, 0)) return v;
    return fmt::format("{} ± {}", v, noise);
  }

 private:
  static std::string noise_phrase(const RunMetric& m, double half) {
    if (m.unit == MetricUnit::kShare) return fmt::format("{:.1f} pt", 100 * half);
    if (m.unit == MetricUnit::kPods || m.unit == MetricUnit::kCount) return figure_of(half);
    if (m.unit == MetricUnit::kUsd) return fmt::format("${:.2f}", half);
    return metric_phrase_value(m, half);
  }
  static std::string figure_of(double v) { return slicelab::figure(v); }

  const DecideSpec& spec_;
  std::span<const RunResult> means_;
  std::span<const SeedSummaries> per_seed_;
  size_t seeds_ = 1;
};

// The outcome of selecting among `cands` (in the scenario's order).
struct Selection {
  size_t chosen = 0;
  std::vector<size_t> leaders;       // tied with the chosen one before a key decided
  std::vector<size_t> tied_goals;    // the keys the leaders tie on
  std::optional<size_t> decided_by;  // the key that separated the chosen one
  std::optional<size_t> next_best;   // the closest other on that key
};

// Key by key, keep the best and every policy not separated from it; the first key that leaves
// one policy decides. When none does, the best means choose among the leaders.
Selection select(const Ranking& r, const DecideSpec& spec, std::vector<size_t> cands) {
  Selection sel;
  for (size_t gi = 0; gi < spec.objective.size() && cands.size() > 1; ++gi) {
    const DecideGoal& g = spec.objective[gi];
    size_t best = cands.front();
    for (const size_t i : cands)
      if (compare_on(g, r.mean(i), r.mean(best)) < 0) best = i;
    std::vector<size_t> keep;
    std::optional<size_t> next;
    for (const size_t i : cands) {
      if (i == best || !r.separated(g, best, i)) {
        keep.push_back(i);
      } else if (!next || compare_on(g, r.mean(i), r.mean(*next)) < 0) {
        next = i;
      }
    }
    if (keep.size() == 1) {
      sel.chosen = best;
      sel.decided_by = gi;
      sel.next_best = next;
      sel.leaders = cands.size() > 1 && !sel.tied_goals.empty() ? cands : std::vector<size_t>{};
      return sel;
    }
    sel.tied_goals.push_back(gi);
    cands = std::move(keep);
  }
  sel.leaders = cands.size() > 1 ? cands : std::vector<size_t>{};
  sel.chosen = *std::min_element(cands.begin(), cands.end(), [&](size_t a, size_t b) {
    return r.better_on_means(a, b) || (!r.better_on_means(b, a) && a < b);
  });
  return sel;
}

// "a higher queue p99 (4.7h vs 4.5h)", the first value being `a`'s.
std::string difference(const Ranking& r, const DecideGoal& g, size_t a, size_t b) {
  const auto va = g.value(r.mean(a)), vb = g.value(r.mean(b));
  const bool higher = va && (!vb || *va > *vb);
  return fmt::format("{} {} ({} vs {})", higher ? "a higher" : "a lower", words(g.metric_text()),
                     metric_phrase_value(*g.metric, va), metric_phrase_value(*g.metric, vb));
}

std::string goal_words(const DecideSpec& spec, const std::vector<size_t>& goals) {
  std::vector<std::string> names;
  for (const size_t gi : goals) names.push_back(words(spec.objective[gi].metric_text()));
  return listed(names);
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
      return m.column.format == CellFormat::kLatency || m.json.starts_with("services.")
                 ? latency(v)
                 : duration(v);
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
  std::vector<SeedSummaries> one;
  one.reserve(runs.size());
  for (const RunResult& r : runs) one.push_back({&r.summary});
  return choose_policy(spec, runs, one);
}

PolicyChoice choose_policy(const DecideSpec& spec, std::span<const RunResult> means,
                           std::span<const SeedSummaries> per_seed) {
  const Ranking r(spec, means, per_seed);
  const size_t n = r.seeds();
  PolicyChoice c;
  c.seeds = n;
  std::vector<std::string> goals, limits;
  for (const DecideGoal& g : spec.objective) goals.push_back(g.text());
  for (const DecideConstraint& k : spec.constraints) limits.push_back(k.text());
  c.basis =
      fmt::format("{} by {}{}", spec.stated ? "Decided" : "Decided (default objective)",
                  fmt::join(goals, ", then "),
                  limits.empty() ? "" : fmt::format("; constraints {}", fmt::join(limits, ", ")));
  c.basis += n < 2 ? "; one seed: noise unknown, so every difference decides (--seeds N replicates)"
                   : fmt::format(
                         "; a key decides only where the paired difference over {} seeds "
                         "is beyond noise (95% interval), else the next key does",
                         n);
  c.broken.resize(means.size());
  std::vector<size_t> ok;
  for (size_t i = 0; i < means.size(); ++i) {
    for (const DecideConstraint& k : spec.constraints) {
      const size_t met = r.seeds_meeting(k, i);
      if (met == n) continue;
      c.broken[i].push_back(n < 2 ? k.text()
                                  : fmt::format("{} (met in {} of {} seeds)", k.text(), met, n));
    }
    if (c.broken[i].empty()) ok.push_back(i);
    if (const std::string w = lost_pods_warning(means[i].policy, means[i].summary); !w.empty())
      c.warnings.push_back(w);
  }
  if (ok.empty()) {
    if (means.empty()) return c;
    // The constraint broken by the most policies binds (ties: the first written); the closest
    // policy is the one breaking the fewest constraints, best by the objective.
    size_t bind = 0, most = 0;
    for (size_t k = 0; k < spec.constraints.size(); ++k) {
      size_t broke = 0;
      for (size_t i = 0; i < means.size(); ++i)
        broke += r.seeds_meeting(spec.constraints[k], i) < n;
      if (broke > most) most = broke, bind = k;
    }
    std::vector<size_t> all(means.size());
    std::iota(all.begin(), all.end(), size_t{0});
    std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) {
      return c.broken[a].size() != c.broken[b].size() ? c.broken[a].size() < c.broken[b].size()
                                                      : r.better_on_means(a, b);
    });
    const DecideConstraint& k = spec.constraints[bind];
    const size_t near = all.front();
    c.text = fmt::format(
        "No policy meets every constraint{}, so none is recommended: {} binds ({} of {} policies "
        "break it); the closest is {} ({} = {}{}).",
        n < 2 ? "" : " in every seed", k.text(), most, means.size(), r.name(near), k.metric_text(),
        metric_phrase_value(*k.metric, k.value(r.mean(near))),
        c.broken[near].empty() ? ""
                               : fmt::format(", breaking {}", fmt::join(c.broken[near], ", ")));
    return c;
  }
  const Selection sel = select(r, spec, ok);
  c.chosen = sel.chosen;
  c.indistinguishable = sel.leaders;
  for (const size_t gi : sel.tied_goals) c.tied_on.push_back(spec.objective[gi].metric_text());
  if (sel.decided_by) c.decided_by = spec.objective[*sel.decided_by].metric_text();
  std::vector<std::string> figures;
  for (const DecideGoal& g : spec.objective)
    figures.push_back(words(g.metric_text()) + " " + r.figure(g, sel.chosen));
  const std::string seeds_text = n < 2 ? "" : fmt::format(" over {} seeds", n);
  c.text = fmt::format("Recommended: {} ({}{}).", r.name(sel.chosen), fmt::join(figures, ", "),
                       seeds_text);
  if (ok.size() < 2) {
    if (means.size() > 1)
      c.text += fmt::format(" It is the only policy that meets {}{}.", fmt::join(limits, ", "),
                            n < 2 ? "" : " in every seed");
    return c;
  }
  std::vector<size_t> rest;
  for (const size_t i : ok)
    if (i != sel.chosen) rest.push_back(i);
  const size_t second = select(r, spec, rest).chosen;
  c.runner_up = second;

  if (n < 2) {
    // One seed: every difference decides; the runner-up says what it trades.
    std::vector<std::string> gains;
    std::string loss;
    for (const DecideGoal& g : spec.objective) {
      const int d = compare_on(g, r.mean(second), r.mean(sel.chosen));
      if (d < 0) gains.push_back(difference(r, g, second, sel.chosen));
      if (d > 0 && loss.empty()) loss = difference(r, g, second, sel.chosen);
    }
    if (loss.empty())
      c.text +=
          fmt::format(" Runner-up: {}, equal on every objective (the scenario's order decides).",
                      r.name(second));
    else if (gains.empty())
      c.text += fmt::format(" Runner-up: {}, with {}.", r.name(second), loss);
    else
      c.text += fmt::format(" Runner-up: {}, which trades {} for {}.", r.name(second), loss,
                            fmt::join(gains, " and "));
    return c;
  }

  // Several seeds: say which policies noise cannot tell apart, and what decided.
  std::vector<std::string> leader_names;
  for (const size_t i : sel.leaders) leader_names.push_back(r.name(i));
  if (sel.decided_by) {
    const DecideGoal& g = spec.objective[*sel.decided_by];
    const size_t other = sel.next_best.value_or(second);
    if (!sel.leaders.empty())
      c.text += fmt::format(
          " {} are indistinguishable on {} ({} seeds); chosen by {}:", listed(leader_names),
          goal_words(spec, sel.tied_goals), n, words(g.metric_text()));
    else
      c.text += fmt::format(" Chosen by {}:", words(g.metric_text()));
    c.text += fmt::format(" {} against {} for {}, beyond noise.", r.figure(g, sel.chosen),
                          r.figure(g, other), r.name(other));
  } else {
    std::vector<size_t> all_goals(spec.objective.size());
    std::iota(all_goals.begin(), all_goals.end(), size_t{0});
    c.text += fmt::format(
        " Nothing separates {} on {} ({} seeds): any of them will do; {} has the best means.",
        listed(leader_names), goal_words(spec, all_goals), n, r.name(sel.chosen));
    // The closest other leader, on the first key where their means differ.
    for (const DecideGoal& g : spec.objective) {
      std::optional<size_t> other;
      for (const size_t i : sel.leaders)
        if (i != sel.chosen && compare_on(g, r.mean(i), r.mean(sel.chosen)) != 0 &&
            (!other || compare_on(g, r.mean(i), r.mean(*other)) < 0))
          other = i;
      if (!other) continue;
      const PairedDifference d = r.paired(g, sel.chosen, *other);
      c.seeds_to_separate = seeds_to_separate(d.difference);
      if (c.seeds_to_separate)
        c.text += fmt::format(
            " Separating it from {} on {} ({} vs {}) would take about {} seeds at the observed "
            "variance.",
            r.name(*other), words(g.metric_text()), r.figure(g, sel.chosen), r.figure(g, *other),
            *c.seeds_to_separate);
      break;
    }
  }
  if (!spec.constraints.empty())
    c.text += fmt::format(" It meets {} in {} of {} seeds.", fmt::join(limits, ", "), n, n);
  return c;
}

nlohmann::ordered_json PolicyChoice::json(std::span<const RunResult> runs) const {
  nlohmann::ordered_json j;
  j["basis"] = basis;
  j["recommended"] = chosen ? nlohmann::ordered_json(runs[*chosen].policy) : nullptr;
  j["runner_up"] = runner_up ? nlohmann::ordered_json(runs[*runner_up].policy) : nullptr;
  j["text"] = text;
  if (seeds > 1) {
    j["seeds"] = seeds;
    nlohmann::ordered_json tied = nlohmann::ordered_json::array();
    for (const size_t i : indistinguishable) tied.push_back(runs[i].policy);
    j["indistinguishable"] = std::move(tied);
    j["tied_on"] = tied_on;
    j["decided_by"] = decided_by ? nlohmann::ordered_json(*decided_by) : nullptr;
    j["seeds_to_separate"] =
        seeds_to_separate ? nlohmann::ordered_json(*seeds_to_separate) : nullptr;
  }
  nlohmann::ordered_json excluded = nlohmann::ordered_json::object();
  for (size_t i = 0; i < runs.size(); ++i)
    if (!broken[i].empty()) excluded[runs[i].policy] = broken[i];
  j["breaks_constraints"] = std::move(excluded);
  j["warnings"] = warnings;
  return j;
}

}  // namespace slicelab
