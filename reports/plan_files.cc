#include "reports/plan_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "planning/plan_metrics.h"
#include "reports/atomic_folder.h"
#include "reports/output_values.h"
#include "reports/report_format.h"
#include "sim/metrics/run_metrics.h"
#include "sim/metrics/seed_statistics.h"
#include "sim/scenario/replications.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

std::string num(const std::optional<double>& v) {
  return v ? fmt::format("{:.9g}", tidy_value(*v)) : std::string();
}

// The metrics shown at the recommended size: the targets' first, then the headline ones.
std::vector<std::string> shown_metrics(const CapacityPlan& plan) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& t : plan.spec.targets)
    if (seen.insert(t.metric).second) out.push_back(t.metric);
  for (const RunMetric* m : target_metrics())
    if (m->target.plan_headline && seen.insert(std::string(m->target.name)).second)
      out.emplace_back(m->target.name);
  return out;
}

// Metric `m` over the seeds of point `p` that have a value.
std::optional<Estimate> point_estimate(const PlanPoint& p, const std::string& m) {
  std::vector<double> v;
  for (const RunSummary& s : p.summaries)
    if (const auto x = metric_value(s, m)) v.push_back(*x);
  if (v.empty()) return std::nullopt;
  return estimate(v);
}

// {n, mean, ci95: [low, high] (null for one seed), min, max}; null when no seed has a value.
ojson estimate_json(const std::optional<Estimate>& e) {
  if (!e) return nullptr;
  return {{"n", e->n},
          {"mean", tidy_value(e->mean)},
          {"ci95", e->half_width ? ojson::array({tidy_value(e->low()), tidy_value(e->high())})
                                 : ojson(nullptr)},
          {"min", tidy_value(e->min)},
          {"max", tidy_value(e->max)}};
}

// "6-8" or "7" (the seeds' own sizes), "-" when no seed has one.
std::string range_text(const PolicyPlan& p) {
  const auto r = p.seed_size_range();
  if (!r) return "-";
  return r->first == r->second ? fmt::format("{}", r->first)
                               : fmt::format("{}-{}", r->first, r->second);
}

// Seeds in which no size up to the maximum met the targets, for messages.
std::vector<uint64_t> unsized_seeds(const PolicyPlan& p) {
  std::vector<uint64_t> out;
  for (const SeedSize& z : p.seed_sizes)
    if (!z.group_nodes) out.push_back(z.seed);
  return out;
}

// A mean with its interval for people: "3.1m ± 20s" (no ± for one seed).
std::string figure_text(const std::string& m, const std::optional<Estimate>& e) {
  if (!e) return "—";
  std::string out = plan_value_text(m, e->mean);
  if (e->half_width && *e->half_width > 0) out += " ± " + plan_value_text(m, *e->half_width);
  return out;
}

std::string targets_md(const CapacityPlan& plan) {
  std::string out;
  for (const auto& t : plan.spec.targets)
    out += fmt::format("- `{}` {} {}\n", t.metric, t.op(), plan_value_text(t.metric, t.bound));
  return out;
}

}  // namespace

std::string plan_value_text(const std::string& metric, std::optional<double> v) {
  if (!v) return "—";
  // Request latencies are milliseconds to seconds; queueing and run times minutes to days.
  if (metric.starts_with("latency_")) return latency(v);
  if (is_seconds_metric(metric)) return duration(v);
  // Large figures (dollars, GPU-hours) in full rather than as 2.176e+04.
  return std::abs(*v) >= 1e4 ? fmt::format("{:.0f}", *v) : fmt::format("{:.4g}", *v);
}

std::string infeasible_reason(const CapacityPlan& plan, const PolicyPlan& p) {
  if (p.chosen) return "";
  if (p.curve.empty()) return "no size was evaluated";
  const PlanPoint& last = p.curve.back();  // ascending: the largest size tried
  std::vector<std::string> missed;
  for (size_t s = 0; s < last.summaries.size(); ++s)
    for (const auto& t : plan.spec.targets) {
      const auto v = metric_value(last.summaries[s], t.metric);
      if (t.met_by(v)) continue;
      const std::string in_seed = plan.seeds.size() > 1 && s < plan.seeds.size()
                                      ? fmt::format(" in seed {}", plan.seeds[s])
                                      : std::string();
      missed.push_back(v ? fmt::format("{} = {}{} (target {} {})", t.metric,
                                       plan_value_text(t.metric, v), in_seed, t.op(),
                                       plan_value_text(t.metric, t.bound))
                         : fmt::format("{} has no value{}", t.metric, in_seed));
    }
  // Many seeds can miss the same target: the first few say enough.
  constexpr size_t kMaxListed = 4;
  const size_t more = missed.size() > kMaxListed ? missed.size() - kMaxListed : 0;
  if (more > 0) missed.resize(kMaxListed);
  return fmt::format("at {} GPUs ({} nodes in the group, the most tried): {}{}", last.gpus,
                     last.group_nodes,
                     missed.empty() ? std::string("targets met only at sizes not kept")
                                    : fmt::format("{}", fmt::join(missed, "; ")),
                     more > 0 ? fmt::format("; and {} more", more) : std::string());
}

ojson plan_json(const CapacityPlan& plan) {
  ojson j;
  j["kind"] = "plan";
  j["format"] = kPlanFormat;
  j["scenario"] = plan.scenario;
  j["seeds"] = plan.seeds;
  j["growth"] = tidy_value(plan.spec.growth);
  ojson targets = ojson::array();
  for (const auto& t : plan.spec.targets)
    targets.push_back({{"metric", t.metric}, {"op", t.op()}, {"value", tidy_value(t.bound)}});
  j["targets"] = targets;
  j["scaled"] = plan.scaled;
  const auto shown = shown_metrics(plan);
  ojson policies = ojson::array();
  for (const auto& p : plan.policies) {
    ojson e;
    e["policy"] = p.policy;
    e["feasible"] = p.chosen.has_value();
    e["group_nodes"] = p.chosen ? ojson(p.chosen->group_nodes) : ojson(nullptr);
    e["gpus"] = p.chosen ? ojson(p.chosen->gpus) : ojson(nullptr);
    e["nodes"] = p.chosen ? ojson(p.chosen->nodes) : ojson(nullptr);
    e["cost_per_hour"] = p.chosen ? ojson(tidy_value(p.chosen->cost_per_hour)) : ojson(nullptr);
    if (!p.chosen) e["reason"] = infeasible_reason(plan, p);
    ojson seed_sizes = ojson::array();
    for (const SeedSize& z : p.seed_sizes)
      seed_sizes.push_back(
          {{"seed", z.seed},
           {"group_nodes", z.group_nodes ? ojson(*z.group_nodes) : ojson(nullptr)}});
    e["seed_sizes"] = seed_sizes;
    const auto range = p.seed_size_range();
    e["seed_size_range"] =
        range ? ojson{{"min", range->first}, {"max", range->second}} : ojson(nullptr);
    ojson metrics = ojson::object();
    ojson estimates = ojson::object();
    if (p.chosen)
      for (const auto& m : shown) {
        const auto est = point_estimate(*p.chosen, m);
        metrics[m] = json_value(est ? std::optional<double>(est->mean) : std::nullopt);
        estimates[m] = estimate_json(est);
      }
    e["metrics"] = metrics;
    e["estimates"] = estimates;
    ojson curve = ojson::array();
    for (const auto& c : p.curve) {
      // Every target's metric, so the report can draw each target's crossing.
      ojson values = ojson::object();
      ojson spread = ojson::object();
      for (const auto& t : plan.spec.targets) {
        const auto est = point_estimate(c, t.metric);
        values[t.metric] = json_value(est ? std::optional<double>(est->mean) : std::nullopt);
        spread[t.metric] = estimate_json(est);
      }
      const auto met = static_cast<size_t>(std::count(c.meets_in.begin(), c.meets_in.end(), true));
      curve.push_back({{"group_nodes", c.group_nodes},
                       {"gpus", c.gpus},
                       {"nodes", c.nodes},
                       {"value", json_value(c.value)},
                       {"meets", c.meets},
                       {"seeds_meeting", met},
                       {"values", values},
                       {"estimates", spread}});
    }
    e["curve"] = curve;
    if (p.fit) {
      ojson pts = ojson::array();
      for (const auto& s : p.fit->samples)
        pts.push_back({{"gpus", tidy_value(s.gpus)}, {"value", tidy_value(s.value)}});
      e["fit"] = {{"model", capacity_model_text()},
                  {"coefficients", {tidy_value(p.fit->a), tidy_value(p.fit->b)}},
                  {"r2", tidy_value(p.fit->r2)},
                  {"points", pts}};
    } else {
      e["fit"] = nullptr;
    }
    policies.push_back(e);
  }
  j["policies"] = policies;
  j["recommendation"] = plan.recommendation;
  return j;
}

std::string capacity_csv(const CapacityPlan& plan) {
  std::string out = "policy,gpus,nodes,value,meets,value_min,value_max,seeds_meeting\n";
  const std::string& first = plan.spec.targets.front().metric;
  for (const auto& p : plan.policies)
    for (const auto& c : p.curve) {
      const auto e = point_estimate(c, first);
      out += fmt::format("{},{},{},{},{},{},{},{}\n", csv_field(p.policy), c.gpus, c.nodes,
                         num(c.value), c.meets ? "true" : "false",
                         num(e ? std::optional<double>(e->min) : std::nullopt),
                         num(e ? std::optional<double>(e->max) : std::nullopt),
                         std::count(c.meets_in.begin(), c.meets_in.end(), true));
    }
  return out;
}

std::string plan_table(const CapacityPlan& plan) {
  std::string out = fmt::format("sized over {}: a size must meet every target in every seed\n\n",
                                seeds_text(plan.seeds));
  out += fmt::format("{:<18} {:>8} {:>9} {:>6} {:>6} {:>10}", "policy", "group", "per seed",
                     "nodes", "GPUs", "$/h");
  for (const auto& t : plan.spec.targets) out += fmt::format(" {:>20}", t.metric);
  out += fmt::format(" {:>6}\n", "r2");
  for (const auto& p : plan.policies) {
    if (p.chosen) {
      out +=
          fmt::format("{:<18} {:>8} {:>9} {:>6} {:>6} {:>10.2f}", p.policy, p.chosen->group_nodes,
                      range_text(p), p.chosen->nodes, p.chosen->gpus, p.chosen->cost_per_hour);
      for (const auto& t : plan.spec.targets) {
        const auto e = point_estimate(*p.chosen, t.metric);
        out += fmt::format(" {:>20}", e ? figure_text(t.metric, e) : "-");
      }
    } else {
      out += fmt::format("{:<18} {:>8} {:>9} {:>6} {:>6} {:>10}", p.policy, "-", range_text(p), "-",
                         "-", "infeasible");
      for (size_t i = 0; i < plan.spec.targets.size(); ++i) out += fmt::format(" {:>20}", "-");
    }
    out += fmt::format(" {:>6}\n", p.fit ? fmt::format("{:.3f}", p.fit->r2) : "-");
  }
  if (plan.seeds.size() > 1)
    out +=
        "(group: nodes meeting the targets in every seed; per seed: the range of each seed's "
        "own smallest size; figures: mean ± 95% CI over the seeds)\n";
  for (const auto& p : plan.policies)
    if (!p.chosen)
      out += fmt::format("{} is infeasible: {}\n", p.policy, infeasible_reason(plan, p));
  out += "\n" + plan.recommendation + "\n";
  return out;
}

std::string plan_markdown(const CapacityPlan& plan) {
  const auto shown = shown_metrics(plan);
  std::string out =
      fmt::format("# Capacity plan: {}\n\n{}\n\n", plan.scenario, plan.recommendation);
  out += fmt::format(
      "Workload growth: {:g}x. Sized: {}. Sized over {}: the recommended size meets every target "
      "in every seed.\n\nTargets (all must hold):\n\n{}\n",
      plan.spec.growth, plan.scaled, seeds_text(plan.seeds), targets_md(plan));
  out +=
      "## Smallest cluster per policy\n\n| policy | nodes in group | each seed alone | nodes | "
      "GPUs | $/h |";
  for (const auto& m : shown) out += fmt::format(" {} |", m);
  out += "\n|---|---|---|---|---|---|";
  for (size_t i = 0; i < shown.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& p : plan.policies) {
    if (!p.chosen) {
      out += fmt::format("| {} | infeasible up to {} (below) | {} | | | |", p.policy,
                         plan.spec.max_nodes, range_text(p));
      for (size_t i = 0; i < shown.size(); ++i) out += " |";
      out += "\n";
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {:.2f} |", p.policy, p.chosen->group_nodes,
                       range_text(p), p.chosen->nodes, p.chosen->gpus, p.chosen->cost_per_hour);
    for (const auto& m : shown)
      out += fmt::format(" {} |", figure_text(m, point_estimate(*p.chosen, m)));
    out += "\n";
  }
  out += fmt::format(
      "\nFigures are the mean over the {} seeds{}. Each seed alone: the range of the smallest size "
      "each seed's own workload needs.\n",
      plan.seeds.size(), plan.seeds.size() > 1 ? " ± the 95% confidence interval" : "");
  for (const auto& p : plan.policies) {
    if (plan.seeds.size() < 2) break;
    std::vector<std::string> per;
    for (const SeedSize& z : p.seed_sizes)
      per.push_back(z.group_nodes ? fmt::format("{}: {}", z.seed, *z.group_nodes)
                                  : fmt::format("{}: none", z.seed));
    out +=
        fmt::format("\n{} per seed (seed: nodes in group): {}.\n", p.policy, fmt::join(per, ", "));
  }
  for (const auto& p : plan.policies)
    if (!p.chosen) {
      const auto unsized = unsized_seeds(p);
      out += fmt::format("\n{} is infeasible{}: {}.\n", p.policy,
                         unsized.empty() || plan.seeds.size() < 2
                             ? std::string()
                             : fmt::format(" (no size fits seed {})", fmt::join(unsized, ", ")),
                         infeasible_reason(plan, p));
    }
  const std::string& first = plan.spec.targets.front().metric;
  out += fmt::format("\n## Capacity curves ({} against GPUs)\n\n", first);
  for (const auto& p : plan.policies) {
    out += fmt::format("### {}\n\n", p.policy);
    if (p.fit)
      out += fmt::format("Fit (to the means): {} with a = {:.6g}, b = {:.6g}; r² = {:.4f}.\n\n",
                         capacity_model_text(), p.fit->a, p.fit->b, p.fit->r2);
    else
      out += "Fit: none (fewer than two sizes with a value).\n\n";
    if (p.non_monotone)
      out +=
          "Note: the check is not monotone in cluster size here (a smaller size met it "
          "below a larger one that failed); the recommended size was run and verified.\n\n";
    out +=
        "| GPUs | nodes | value (mean) | seed range | seeds meeting targets "
        "|\n|---|---|---|---|---|\n";
    for (const auto& c : p.curve) {
      const auto e = point_estimate(c, first);
      out += fmt::format(
          "| {} | {} | {} | {} | {} of {} |\n", c.gpus, c.nodes, plan_value_text(first, c.value),
          e ? fmt::format("{} – {}", plan_value_text(first, e->min), plan_value_text(first, e->max))
            : "—",
          std::count(c.meets_in.begin(), c.meets_in.end(), true), c.meets_in.size());
    }
    out += "\n";
  }
  return out;
}

void write_plan(const std::string& dir, const CapacityPlan& plan, bool force) {
  write_folder_atomically(dir, force, [&](const std::filesystem::path& tmp) {
    write_text_file(tmp / "plan.json", plan_json(plan).dump(2) + "\n");
    write_text_file(tmp / "plan.md", plan_markdown(plan));
    write_text_file(tmp / "capacity.csv", capacity_csv(plan));
  });
}

}  // namespace slicelab
