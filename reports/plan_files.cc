#include "reports/plan_files.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "reports/atomic_folder.h"
#include "reports/output_values.h"
#include "sim/metrics/run_metrics.h"
#include "sim/planning/plan_metrics.h"

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
    out += fmt::format("- `{}` {} {:g}\n", t.metric, t.op(), t.bound);
  return out;
}

}  // namespace

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
    ojson metrics = ojson::object();
    if (p.chosen)
      for (const auto& m : shown) metrics[m] = json_value(metric_value(p.chosen->summary, m));
    e["metrics"] = metrics;
    ojson curve = ojson::array();
    for (const auto& c : p.curve)
      curve.push_back({{"gpus", c.gpus},
                       {"nodes", c.nodes},
                       {"value", json_value(c.value)},
                       {"meets", c.meets}});
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
        out += fmt::format(" {:>18}", v ? fmt::format("{:.4g}", *v) : "-");
      }
    } else {
      out += fmt::format("{:<18} {:>8} {:>6} {:>6} {:>10}", p.policy, "-", "-", "-", "infeasible");
      for (size_t i = 0; i < plan.spec.targets.size(); ++i) out += fmt::format(" {:>18}", "-");
    }
    out += fmt::format(" {:>6}\n", p.fit ? fmt::format("{:.3f}", p.fit->r2) : "-");
  }
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
      out += fmt::format("| {} | infeasible up to {} | | | |", p.policy, plan.spec.max_nodes);
      for (size_t i = 0; i < shown.size(); ++i) out += " |";
      out += "\n";
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | {:.2f} |", p.policy, p.chosen->group_nodes,
                       p.chosen->nodes, p.chosen->gpus, p.chosen->cost_per_hour);
    for (const auto& m : shown) {
      const auto v = metric_value(p.chosen->summary, m);
      out += fmt::format(" {} |", v ? fmt::format("{:.4g}", *v) : "—");
    }
    out += "\n";
  }
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
                         c.value ? fmt::format("{:.4g}", *c.value) : "—", c.meets ? "yes" : "no");
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
