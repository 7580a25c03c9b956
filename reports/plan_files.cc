#include "reports/plan_files.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "planning/plan_metrics.h"
#include "reports/atomic_folder.h"
#include "reports/output_values.h"
#include "reports/report_format.h"
#include "sim/metrics/run_metrics.h"

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

std::string targets_md(const CapacityPlan& plan) {
  std::string out;
  for (const auto& t : plan.spec.targets)
    out += fmt::format("- `{}` {} {}\n", t.metric, t.op(), plan_value_text(t.metric, t.bound));
  return out;
}

}  // namespace

std::string plan_value_text(const std::string& metric, std::optional<double> v) {
  if (!v) return "—";
  if (is_seconds_metric(metric)) return duration(v);
  // Large figures (dollars, GPU-hours) in full rather than as 2.176e+04.
  return std::abs(*v) >= 1e4 ? fmt::format("{:.0f}", *v) : fmt::format("{:.4g}", *v);
}

std::string infeasible_reason(const CapacityPlan& plan, const PolicyPlan& p) {
  if (p.chosen) return "";
  if (p.curve.empty()) return "no size was evaluated";
  const PlanPoint& last = p.curve.back();  // ascending: the largest size tried
  std::vector<std::string> missed;
  for (const auto& t : plan.spec.targets) {
    const auto v = metric_value(last.summary, t.metric);
    if (!t.met_by(v))
      missed.push_back(v ? fmt::format("{} = {} (target {} {})", t.metric,
                                       plan_value_text(t.metric, v), t.op(),
                                       plan_value_text(t.metric, t.bound))
                         : fmt::format("{} has no value", t.metric));
  }
  return fmt::format("at {} GPUs ({} nodes in the group, the most tried): {}", last.gpus,
                     last.group_nodes,
                     missed.empty() ? std::string("targets met only at sizes not kept")
                                    : fmt::format("{}", fmt::join(missed, "; ")));
}

ojson plan_json(const CapacityPlan& plan) {
  ojson j;
  j["kind"] = "plan";
  j["scenario"] = plan.scenario;
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
    e["gpus"] = p.chosen ? ojson(p.chosen->gpus) : ojson(nullptr);
    e["nodes"] = p.chosen ? ojson(p.chosen->nodes) : ojson(nullptr);
    e["cost_per_hour"] = p.chosen ? ojson(tidy_value(p.chosen->cost_per_hour)) : ojson(nullptr);
    if (!p.chosen) e["reason"] = infeasible_reason(plan, p);
    ojson metrics = ojson::object();
    if (p.chosen)
      for (const auto& m : shown) metrics[m] = json_value(metric_value(p.chosen->summary, m));
    e["metrics"] = metrics;
    ojson curve = ojson::array();
    for (const auto& c : p.curve) {
      // Every target's metric, so the report can draw each target's crossing.
      ojson values = ojson::object();
      for (const auto& t : plan.spec.targets)
        values[t.metric] = json_value(metric_value(c.summary, t.metric));
      curve.push_back({{"gpus", c.gpus},
                       {"nodes", c.nodes},
                       {"value", json_value(c.value)},
                       {"meets", c.meets},
                       {"values", values}});
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
  std::string out = "policy,gpus,nodes,value,meets\n";
  for (const auto& p : plan.policies)
    for (const auto& c : p.curve)
      out += fmt::format("{},{},{},{},{}\n", csv_field(p.policy), c.gpus, c.nodes, num(c.value),
                         c.meets ? "true" : "false");
  return out;
}

std::string plan_table(const CapacityPlan& plan) {
  std::string out =
      fmt::format("{:<18} {:>8} {:>6} {:>6} {:>10}", "policy", "group", "nodes", "GPUs", "$/h");
  for (const auto& t : plan.spec.targets) out += fmt::format(" {:>18}", t.metric);
  out += fmt::format(" {:>6}\n", "r2");
  for (const auto& p : plan.policies) {
    if (p.chosen) {
      out += fmt::format("{:<18} {:>8} {:>6} {:>6} {:>10.2f}", p.policy, p.chosen->group_nodes,
                         p.chosen->nodes, p.chosen->gpus, p.chosen->cost_per_hour);
      for (const auto& t : plan.spec.targets) {
        const auto v = metric_value(p.chosen->summary, t.metric);
        out += fmt::format(" {:>18}", v ? plan_value_text(t.metric, v) : "-");
      }
    } else {
      out += fmt::format("{:<18} {:>8} {:>6} {:>6} {:>10}", p.policy, "-", "-", "-", "infeasible");
      for (size_t i = 0; i < plan.spec.targets.size(); ++i) out += fmt::format(" {:>18}", "-");
    }
    out += fmt::format(" {:>6}\n", p.fit ? fmt::format("{:.3f}", p.fit->r2) : "-");
  }
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
  out += fmt::format("Workload growth: {:g}x. Sized: {}.\n\nTargets (all must hold):\n\n{}\n",
                     plan.spec.growth, plan.scaled, targets_md(plan));
  out += "## Smallest cluster per policy\n\n| policy | nodes in group | nodes | GPUs | $/h |";
  for (const auto& m : shown) out += fmt::format(" {} |", m);
  out += "\n|---|---|---|---|---|";
  for (size_t i = 0; i < shown.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& p : plan.policies) {
    if (!p.chosen) {
      out +=
          fmt::format("| {} | infeasible up to {} (below) | | | |", p.policy, plan.spec.max_nodes);
      for (size_t i = 0; i < shown.size(); ++i) out += " |";
      out += "\n";
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | {:.2f} |", p.policy, p.chosen->group_nodes,
                       p.chosen->nodes, p.chosen->gpus, p.chosen->cost_per_hour);
    for (const auto& m : shown) {
      const auto v = metric_value(p.chosen->summary, m);
      out += fmt::format(" {} |", plan_value_text(m, v));
    }
    out += "\n";
  }
  for (const auto& p : plan.policies)
    if (!p.chosen)
      out += fmt::format("\n{} is infeasible: {}.\n", p.policy, infeasible_reason(plan, p));
  out +=
      fmt::format("\n## Capacity curves ({} against GPUs)\n\n", plan.spec.targets.front().metric);
  for (const auto& p : plan.policies) {
    out += fmt::format("### {}\n\n", p.policy);
    if (p.fit)
      out += fmt::format("Fit: {} with a = {:.6g}, b = {:.6g}; r² = {:.4f}.\n\n",
                         capacity_model_text(), p.fit->a, p.fit->b, p.fit->r2);
    else
      out += "Fit: none (fewer than two sizes with a value).\n\n";
    if (p.non_monotone)
      out +=
          "Note: the check is not monotone in cluster size here (a smaller size met it "
          "below a larger one that failed); the recommended size was run and verified.\n\n";
    out += "| GPUs | nodes | value | meets targets |\n|---|---|---|---|\n";
    for (const auto& c : p.curve)
      out += fmt::format("| {} | {} | {} | {} |\n", c.gpus, c.nodes,
                         plan_value_text(plan.spec.targets.front().metric, c.value),
                         c.meets ? "yes" : "no");
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
