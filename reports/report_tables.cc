// The report's text and tables: read from summary.json, pods.csv and plan.json.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "planning/plan_metrics.h"
#include "reports/differing_metrics.h"
#include "reports/downsample.h"
#include "reports/metric_cells.h"
#include "reports/report_content.h"
#include "reports/report_format.h"
#include "reports/report_uncertainty.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

void intro(const ReportData& d, Report& r) {
  if (d.summary) {
    const ojson& s = *d.summary;
    r.title = fmt::format("slicelab report: {}", text_at(s, {"scenario"}));
    const auto seed = number_at(s, {"seed"});
    r.intro.push_back(fmt::format(
        "{} pods ({}) on {} nodes with {} GPUs, {} policies{}.",
        count(number_at(s, {"workload", "pods"})), text_at(s, {"workload", "source"}),
        count(number_at(s, {"cluster", "nodes"})), count(number_at(s, {"cluster", "gpus"})),
        policies_of(s).size(), seed ? fmt::format(", seed {}", count(seed)) : ""));
    // The recommendation first (summary.json's decision block, written by every compare).
    if (const auto dec = s.find("decision"); dec != s.end() && dec->is_object()) {
      const std::string text = text_at(*dec, {"text"});
      if (!text.empty()) r.intro.push_back(text);
      const std::string basis = text_at(*dec, {"basis"});
      if (!basis.empty()) r.intro.push_back(basis + ".");
      if (const auto w = dec->find("warnings"); w != dec->end() && w->is_array())
        for (const auto& line : *w)
          if (line.is_string()) r.intro.push_back("Warning: " + line.get<std::string>() + ".");
    }
    if (s.contains("seeds") && s["seeds"].is_array()) {
      std::vector<std::string> seeds;
      for (const auto& v : s["seeds"]) seeds.push_back(v.dump());
      r.intro.push_back(fmt::format(
          "Seeds {}: tables and bars show the mean over seeds; distributions and time series "
          "are those of {}.",
          fmt::join(seeds, ", "), d.detail_from.empty() ? "no seed (none found)" : d.detail_from));
      // summary.json's own sentence on what its intervals mean, when it has them.
      if (const std::string u = text_at(s, {"uncertainty"}); !u.empty() && has_uncertainty(s))
        r.intro.push_back(u);
    }
  }
  if (d.plan) {
    const ojson& p = *d.plan;
    if (!d.summary) r.title = fmt::format("slicelab capacity plan: {}", text_at(p, {"scenario"}));
    const std::string rec = text_at(p, {"recommendation"});
    if (!rec.empty()) r.intro.push_back("Recommendation: " + rec);
  }
  r.intro.push_back(fmt::format("Results folder: {}", d.dir.string()));
}

void summary_table(const ojson& s, Report& r) {
  ReportTable t;
  t.title = "Policies compared";
  t.note =
      "alloc = time-weighted share of GPU capacity allocated; frag = time-weighted share "
      "fragmented; unplaced = never placed or still pending at the end.";
  t.head = {"policy", "sharing"};
  // Columns of a kind of run (failure causes) only when some policy has a figure other than 0.
  std::vector<const RunMetric*> shown;
  for (const RunMetric* m : column_metrics()) {
    if (!m->column.report) continue;
    if (m->column.shown_if &&
        std::none_of(policies_of(s).begin(), policies_of(s).end(),
                     [&](const ojson& p) { return json_metric(p, *m).value_or(0) != 0; }))
      continue;
    shown.push_back(m);
    t.head.emplace_back(m->column.label.empty() ? m->column.head : m->column.label);
  }
  // Figures without a column that tell the policies apart (reports/differing_metrics.h).
  const ojson& policies = policies_of(s);
  const std::vector<const RunMetric*> differing = differing_metrics(
      policies.size(), [&](size_t i, const RunMetric& x) { return json_metric(policies[i], x); },
      MetricTable::kReport);
  for (const RunMetric* m : differing) t.head.push_back(differing_head(*m));
  bool lost = false;
  for (const ojson& p : policies_of(s)) {
    const std::string sharing = text_at(p, {"sharing"});
    std::vector<std::string> row = {policy_name(p), sharing.substr(0, sharing.find(' '))};
    const bool failed = number_at(p, {"pods", "failed"}).value_or(0) > 0;
    lost = lost || failed;
    for (const RunMetric* m : shown)
      row.push_back(
          cell_with_spread(
              *m, metric_cell(*m, [&](const RunMetric& x) { return json_metric(p, x); }), p) +
          (failed && of_pods_that_ran(*m) ? "*" : ""));
    for (const RunMetric* m : differing) row.push_back(differing_cell(*m, json_metric(p, *m)));
    t.rows.push_back(std::move(row));
  }
  if (lost) t.note += fmt::format(" * {}.", kOfPodsThatRan);
  if (const std::string spread = spread_note(s); !spread.empty()) t.note += " " + spread;
  section(r, "Summary").tables.push_back(std::move(t));
}

void distribution_table(const ojson& s, Report& r) {
  ReportTable t;
  t.title = "Queueing delay, JCT and slowdown";
  t.note =
      "Queueing delay = start - arrival (pods that started and did not fail); JCT = finish - "
      "arrival (completed pods only); slowdown = JCT / run time alone.";
  t.head = {"policy",    "queue mean",   "queue p50",   "queue p95", "queue p99",
            "queue max", "JCT mean",     "JCT p50",     "JCT p95",   "JCT p99",
            "JCT max",   "slowdown p50", "slowdown p99"};
  for (const ojson& p : policies_of(s)) {
    const bool failed = number_at(p, {"pods", "failed"}).value_or(0) > 0;
    std::vector<std::string> row = {policy_name(p) + (failed ? " (of completed pods only)" : "")};
    for (const char* d : {"queue_delay_s", "jct_s"})
      for (const char* k : {"mean", "p50", "p95", "p99", "max"})
        row.push_back(cell_with_spread(fmt::format("{}.{}", d, k), duration(number_at(p, {d, k})),
                                       p, duration));
    for (const char* k : {"p50", "p99"})
      row.push_back(cell_with_spread(fmt::format("slowdown.{}", k),
                                     decimal(number_at(p, {"slowdown", k}), 2), p,
                                     [](std::optional<double> v) { return decimal(v, 2); }));
    t.rows.push_back(std::move(row));
  }
  if (const std::string spread = spread_note(s); !spread.empty()) t.note += " " + spread;
  section(r, "Queueing delay and JCT").tables.push_back(std::move(t));
}

void per_model_table(const ojson& s, Report& r) {
  ReportTable t;
  t.title = "Utilization per GPU model";
  t.note =
      "Time-weighted over the run window; cost is GPU-hours provisioned times the catalog price.";
  t.head = {"policy",
            "GPU model",
            "GPUs",
            "SM util",
            "memory util",
            "alloc",
            "GPU-h provisioned",
            "GPU-h allocated",
            "cost $"};
  for (const ojson& p : policies_of(s)) {
    const auto it = p.find("per_model");
    if (it == p.end() || !it->is_array()) continue;
    for (const ojson& m : *it)
      t.rows.push_back({policy_name(p), text_at(m, {"model"}), count(number_at(m, {"gpus"})),
                        percent(number_at(m, {"sm_utilization"})),
                        percent(number_at(m, {"memory_utilization"})),
                        percent(number_at(m, {"allocation_ratio"})),
                        decimal(number_at(m, {"gpu_hours_provisioned"}), 1),
                        decimal(number_at(m, {"gpu_hours_allocated"}), 1),
                        decimal(number_at(m, {"cost_usd"}), 2)});
  }
  if (!t.rows.empty()) section(r, "Per GPU model").tables.push_back(std::move(t));
}

// summary.json's per_class blocks (written only when the workload names classes).
void workload_class_table(const ojson& s, Report& r) {
  ReportTable t;
  t.title = "Figures per workload class";
  t.note =
      "Each class's pods alone (pods without a class are in 'default'); unplaced = "
      "unschedulable + pending at the end; GPU-h = GPUs x share asked x time its pods ran.";
  t.head = {"policy",    "class",     "pods",    "done",    "failed", "unplaced",
            "queue p50", "queue p99", "JCT p50", "JCT p99", "SLO",    "GPU-h"};
  for (const ojson& p : policies_of(s)) {
    const auto it = p.find("per_class");
    if (it == p.end() || !it->is_array()) continue;
    for (const ojson& c : *it) {
      const auto unschedulable = number_at(c, {"pods", "unschedulable"});
      const auto pending = number_at(c, {"pods", "pending_at_end"});
      const std::optional<double> unplaced =
          unschedulable || pending
              ? std::optional<double>(unschedulable.value_or(0) + pending.value_or(0))
              : std::nullopt;
      t.rows.push_back(
          {policy_name(p), text_at(c, {"class"}), count(number_at(c, {"pods", "total"})),
           count(number_at(c, {"pods", "completed"})), count(number_at(c, {"pods", "failed"})),
           count(unplaced), duration(number_at(c, {"queue_delay_s", "p50"})),
           duration(number_at(c, {"queue_delay_s", "p99"})),
           duration(number_at(c, {"jct_s", "p50"})), duration(number_at(c, {"jct_s", "p99"})),
           percent(number_at(c, {"slo", "attainment"})),
           decimal(number_at(c, {"gpu_hours", "allocated"}), 1)});
    }
  }
  if (!t.rows.empty()) section(r, "Per workload class").tables.push_back(std::move(t));
}

void failure_tables(const ReportData& d, const ojson& s, Report& r) {
  ReportTable counts;
  counts.title = "Pods that did not run to completion";
  counts.note =
      "failed = started and then failed (e.g. out of memory next to a neighbour); unschedulable "
      "= no node could ever take it; first failure = first time a pod could not be placed.";
  counts.head = {"policy",
                 "failed",
                 "failed: own memory",
                 "failed: neighbours",
                 "failed: faults",
                 "unschedulable",
                 "pending at end",
                 "first failure at",
                 "alloc at first failure"};
  bool any = false;
  for (const ojson& p : policies_of(s)) {
    const double failed = number_at(p, {"pods", "failed"}).value_or(0);
    const double unsched = number_at(p, {"pods", "unschedulable"}).value_or(0);
    const double pending = number_at(p, {"pods", "pending_at_end"}).value_or(0);
    const auto first = number_at(p, {"allocation_ratio", "first_failure_s"});
    any = any || failed + unsched + pending > 0 || first;
    // Counts with their spread over seeds where the summary has one.
    const auto pods = [&](std::string_view key, std::optional<double> v) {
      return cell_with_spread(key, count(v), p, spread_count);
    };
    counts.rows.push_back(
        {policy_name(p), pods("pods.failed", failed),
         pods("pods.failed_own_memory", number_at(p, {"pods", "failed_own_memory"})),
         pods("neighbour_failures", number_at(p, {"neighbour_failures"})),
         pods("pods.failed_faults", number_at(p, {"pods", "failed_faults"})),
         pods("pods.unschedulable", unsched), pods("pods.pending_at_end", pending),
         cell_with_spread("allocation_ratio.first_failure_s", duration(first), p, duration),
         cell_with_spread("allocation_ratio.at_first_failure",
                          percent(number_at(p, {"allocation_ratio", "at_first_failure"})), p,
                          percent)});
  }
  if (!any) return;
  if (const std::string spread = spread_note(s); !spread.empty()) counts.note += " " + spread;
  ReportSection& sec = section(r, "Failures");
  sec.tables.push_back(std::move(counts));

  // Why, per policy: from pods.csv when present, else summary.json's never-placed reasons.
  ReportTable why;
  why.title = "Reasons";
  std::vector<std::string> names;
  std::vector<std::string> reasons;
  std::vector<std::map<std::string, size_t>> by_policy;
  if (!d.pods.empty()) {
    why.note = fmt::format("From pods.csv{}: pods per status and reason.",
                           d.detail_from.empty() ? "" : " of " + d.detail_from);
    for (const PolicyPods& p : d.pods) {
      names.push_back(p.policy);
      by_policy.push_back(p.not_run);
    }
  } else {
    why.note = "From summary.json: pods never placed, per reason.";
    for (const ojson& p : policies_of(s)) {
      names.push_back(policy_name(p));
      std::map<std::string, size_t> m;
      if (p.contains("not_placed_reasons") && p["not_placed_reasons"].is_object())
        for (const auto& [k, v] : p["not_placed_reasons"].items())
          if (v.is_number()) m[k] = v.get<size_t>();
      by_policy.push_back(std::move(m));
    }
  }
  std::set<std::string> seen;
  for (const auto& m : by_policy)
    for (const auto& [k, v] : m)
      if (seen.insert(k).second) reasons.push_back(k);
  if (reasons.empty()) return;
  // Most frequent first (ties by name), and at most kMaxReasons rows: the rest are summed.
  const auto total = [&](const std::string& k) {
    size_t n = 0;
    for (const auto& m : by_policy)
      if (const auto it = m.find(k); it != m.end()) n += it->second;
    return n;
  };
  std::sort(reasons.begin(), reasons.end(), [&](const std::string& a, const std::string& b) {
    const size_t ta = total(a), tb = total(b);
    return ta != tb ? ta > tb : a < b;
  });
  constexpr size_t kMaxReasons = 12;
  if (reasons.size() > kMaxReasons) {
    for (auto& m : by_policy)
      for (size_t i = kMaxReasons; i < reasons.size(); ++i)
        if (const auto it = m.find(reasons[i]); it != m.end()) m["other reasons"] += it->second;
    reasons.resize(kMaxReasons);
    reasons.push_back("other reasons");
  }
  why.head = {"status: reason"};
  why.head.insert(why.head.end(), names.begin(), names.end());
  for (const std::string& reason : reasons) {
    std::vector<std::string> row = {reason};
    for (const auto& m : by_policy) {
      const auto it = m.find(reason);
      row.push_back(it == m.end() ? "0" : fmt::format("{}", it->second));
    }
    why.rows.push_back(std::move(row));
  }
  sec.tables.push_back(std::move(why));
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

void isolation_table(const ReportData& d, Report& r) {
  if (!any_capped_pod(d)) return;
  ReportTable t;
  t.title = "Isolation error per capped pod";
  t.note =
      "|achieved SM share - configured cap|, from pods.csv's isolation_error column (pods "
      "without a cap have no value).";
  t.head = {"policy", "capped pods", "mean", "p50", "p95", "p99", "max"};
  for (const PolicyPods& p : d.pods) {
    const auto& v = p.isolation_error;
    if (v.empty()) {
      t.rows.push_back({p.policy, "0", "-", "-", "-", "-", "-"});
      continue;
    }
    double sum = 0;
    for (const double x : v) sum += x;
    t.rows.push_back({p.policy, fmt::format("{}", v.size()),
                      figure(sum / static_cast<double>(v.size())), figure(quantile(v, 0.5)),
                      figure(quantile(v, 0.95)), figure(quantile(v, 0.99)),
                      figure(*std::max_element(v.begin(), v.end()))});
  }
  section(r, "Isolation").tables.push_back(std::move(t));
}

void fill_table(const ojson& s, Report& r) {
  ReportTable t;
  t.title = "Fill experiment";
  t.note =
      "Shares of the cluster's GPU capacity when the arrived demand first reached 100% of it, "
      "and at the end (the FGD paper's measure).";
  t.head = {"policy",       "arrived",    "alloc @100%", "frag @100%",
            "failed @100%", "alloc @end", "frag @end",   "failed @end"};
  for (const ojson& p : policies_of(s)) {
    if (!p.contains("fill") || !p["fill"].is_object()) continue;
    const ojson& f = p["fill"];
    t.rows.push_back({policy_name(p), percent(number_at(f, {"arrived_at_end"})),
                      percent(number_at(f, {"at_full", "allocated"})),
                      percent(number_at(f, {"at_full", "fragmented"})),
                      percent(number_at(f, {"at_full", "failed"})),
                      percent(number_at(f, {"at_end", "allocated"})),
                      percent(number_at(f, {"at_end", "fragmented"})),
                      percent(number_at(f, {"at_end", "failed"}))});
  }
  if (!t.rows.empty()) section(r, "Fill experiment").tables.push_back(std::move(t));
}

// Figures this version of the report does not know (other versions of slicelab add keys to
// summary.json): flattened to "key.sub" rows, one column per policy, so nothing is lost.
void flatten(const ojson& v, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items())
      flatten(x, path.empty() ? k : fmt::format("{}.{}", path, k), out);
  } else if (v.is_number()) {
    out.emplace_back(path, figure(v.get<double>()));
  } else if (v.is_boolean()) {
    out.emplace_back(path, v.get<bool>() ? "yes" : "no");
  } else if (v.is_string()) {
    out.emplace_back(path, v.get<std::string>());
  } else if (v.is_null()) {
    out.emplace_back(path, "-");
  }
}

void extra_tables(const ojson& s, Report& r) {
  // The policy's own keys and the top-level keys of the run-metrics rows the report reads by
  // name; the rest are listed as written.
  std::set<std::string> known = {"name", "placement", "sharing"};
  for (const RunMetric& m : run_metrics())
    if (m.report == ReportUse::kKnown && !m.json.empty())
      known.emplace(m.json.substr(0, m.json.find('.')));
  for (const bool isolation : {true, false}) {
    std::vector<std::string> names, rows;
    std::unordered_set<std::string> listed;  // rows, for a linear pass over many keys
    std::vector<std::map<std::string, std::string>> cells;
    for (const ojson& p : policies_of(s)) {
      names.push_back(policy_name(p));
      std::vector<std::pair<std::string, std::string>> flat;
      for (const auto& [k, v] : p.items()) {
        if (known.count(k)) continue;
        const bool about_isolation =
            k.find("isolation") != std::string::npos || k.find("oom") != std::string::npos;
        if (about_isolation == isolation) flatten(v, k, flat);
      }
      std::map<std::string, std::string> m;
      for (auto& [k, v] : flat) {
        if (listed.insert(k).second) rows.push_back(k);
        m[k] = v;
      }
      cells.push_back(std::move(m));
    }
    if (rows.empty()) continue;
    ReportTable t;
    t.title = isolation ? "Isolation figures" : "More figures";
    t.note = "Further keys of summary.json, as written.";
    t.head = {"figure"};
    t.head.insert(t.head.end(), names.begin(), names.end());
    for (const std::string& k : rows) {
      std::vector<std::string> row = {k};
      for (const auto& m : cells) {
        const auto it = m.find(k);
        row.push_back(it == m.end() ? "-" : it->second);
      }
      t.rows.push_back(std::move(row));
    }
    section(r, isolation ? "Isolation" : "Other figures").tables.push_back(std::move(t));
  }
}

// Durations for the planner's "_s" metrics, else a generic figure.
std::string plan_figure(const std::string& metric, double v) {
  if (metric.starts_with("latency_")) return latency(v);
  return is_seconds_metric(metric) ? duration(v) : figure(v);
}

std::string target_text(const ojson& t) {
  const auto v = number_at(t, {"value"});
  const std::string metric = text_at(t, {"metric"});
  return fmt::format("{} {} {}", metric, text_at(t, {"op"}),
                     v ? plan_figure(metric, *v) : std::string("?"));
}

// Half the 95% interval plan.json 2 gives metric `m` of a policy; none in version 1 or for one
// seed.
std::optional<double> ci95_half_width(const ojson& policy, const std::string& m) {
  if (!policy.contains("estimates") || !policy["estimates"].is_object()) return std::nullopt;
  const ojson& e = policy["estimates"];
  if (!e.contains(m) || !e[m].is_object() || !e[m].contains("ci95")) return std::nullopt;
  const ojson& ci = e[m]["ci95"];
  if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number())
    return std::nullopt;
  return (ci[1].get<double>() - ci[0].get<double>()) / 2;
}

void plan_tables(const ojson& plan, Report& r) {
  ReportSection& sec = section(r, "Capacity plan");
  std::vector<std::string> targets;
  if (plan.contains("targets") && plan["targets"].is_array())
    for (const ojson& t : plan["targets"]) targets.push_back(target_text(t));
  std::string scope =
      fmt::format("Smallest cluster per policy that meets {}",
                  targets.empty() ? "the targets" : fmt::format("{}", fmt::join(targets, ", ")));
  if (const auto g = number_at(plan, {"growth"}))
    scope += fmt::format(", workload grown x{}", figure(*g));
  const std::string scaled = text_at(plan, {"scaled"});
  if (!scaled.empty()) scope += fmt::format("; scaling {}", scaled);
  // plan.json 2: the seeds sized over; a size must meet the targets in every one.
  std::vector<std::string> seeds;
  if (plan.contains("seeds") && plan["seeds"].is_array())
    for (const ojson& v : plan["seeds"])
      if (v.is_number_unsigned()) seeds.push_back(std::to_string(v.get<uint64_t>()));
  if (!seeds.empty())
    scope += fmt::format("; sized over {} seed{} ({}), every target met in every seed",
                         seeds.size(), seeds.size() == 1 ? "" : "s", fmt::join(seeds, ", "));
  sec.paragraphs.push_back(scope + ".");
  // The recommendation itself heads the report (intro), so it is not repeated here.

  ReportTable t;
  t.title = "Smallest cluster per policy";
  t.note =
      "Metrics are those of the recommended size (the mean over seeds ± the 95% confidence "
      "interval); each seed alone = the range of the smallest size each seed's workload needs; "
      "infeasible = no evaluated size met every target in every seed.";
  // plan.json 2 sizes over seeds: the range of the seeds' own sizes gets a column.
  bool seeded = false;
  for (const ojson& p : policies_of(plan)) seeded = seeded || p.contains("seed_sizes");
  t.head = {"policy", "feasible", "GPUs", "nodes"};
  if (seeded) t.head.push_back("each seed alone");
  t.head.push_back("cost $/h");
  std::vector<std::string> metrics;
  std::unordered_set<std::string> listed;  // metrics, for a linear pass over many keys
  for (const ojson& p : policies_of(plan))
    if (p.contains("metrics") && p["metrics"].is_object())
      for (const auto& [k, v] : p["metrics"].items())
        if (listed.insert(k).second) metrics.push_back(k);
  // The targets' metrics come first; the headline ones only while the table stays narrow
  // enough for the page.
  constexpr size_t kMaxPlanColumns = 10;
  const size_t n_targets =
      plan.contains("targets") && plan["targets"].is_array() ? plan["targets"].size() : 0;
  metrics.resize(
      std::min(metrics.size(), std::max(n_targets, kMaxPlanColumns - t.head.size() - 1)));
  t.head.insert(t.head.end(), metrics.begin(), metrics.end());
  t.head.push_back("fit");
  ReportTable curve;
  curve.title = "Capacity curve (every size evaluated)";
  curve.note =
      fmt::format("value = {} at that size; meets = every target met.",
                  plan.contains("targets") && plan["targets"].is_array() && !plan["targets"].empty()
                      ? text_at(plan["targets"][0], {"metric"})
                      : std::string("the first target's metric"));
  curve.head = {"policy", "GPUs", "nodes", "value", "meets"};
  const std::string first_metric =
      plan.contains("targets") && plan["targets"].is_array() && !plan["targets"].empty()
          ? text_at(plan["targets"][0], {"metric"})
          : std::string();
  std::vector<std::string> reasons;
  for (const ojson& p : policies_of(plan)) {
    const bool feasible = p.value("feasible", false);
    const auto lo = number_at(p, {"seed_size_range", "min"});
    const auto hi = number_at(p, {"seed_size_range", "max"});
    std::string range = "-";
    if (lo && hi) range = *lo == *hi ? count(*lo) : fmt::format("{}-{}", count(*lo), count(*hi));
    std::vector<std::string> row = {policy_name(p), feasible ? "yes" : "no",
                                    feasible ? count(number_at(p, {"gpus"})) : "-",
                                    feasible ? count(number_at(p, {"nodes"})) : "-"};
    if (seeded) row.push_back(range);
    row.push_back(feasible ? decimal(number_at(p, {"cost_per_hour"}), 2) : "-");
    for (const std::string& m : metrics) {
      const auto v = p.contains("metrics") ? number_at(p["metrics"], {m}) : std::nullopt;
      std::string cell = v ? plan_figure(m, *v) : "-";
      if (const auto ci = ci95_half_width(p, m); v && ci && *ci > 0)
        cell += " ± " + plan_figure(m, *ci);
      row.push_back(cell);
    }
    // The coefficients are in plan.json and plan.md; the table keeps to how well it fits.
    std::string fit = "-";
    if (p.contains("fit") && p["fit"].is_object())
      if (const auto r2 = number_at(p["fit"], {"r2"})) fit = fmt::format("R2 {:.2f}", *r2);
    if (!feasible) {
      const std::string why = text_at(p, {"reason"});
      reasons.push_back(fmt::format("{} is infeasible{}", policy_name(p),
                                    why.empty() ? std::string(".") : ": " + why + "."));
    }
    row.push_back(fit);
    t.rows.push_back(std::move(row));
    if (p.contains("curve") && p["curve"].is_array())
      for (const ojson& c : p["curve"]) {
        const auto v = number_at(c, {"value"});
        curve.rows.push_back(
            {policy_name(p), count(number_at(c, {"gpus"})), count(number_at(c, {"nodes"})),
             v ? plan_figure(first_metric, *v) : "-", c.value("meets", false) ? "yes" : "no"});
      }
  }
  sec.tables.push_back(std::move(t));
  sec.paragraphs.insert(sec.paragraphs.end(), reasons.begin(), reasons.end());
  // After the charts (its own section): the long list of every size evaluated.
  if (!curve.rows.empty()) section(r, "Sizes evaluated").tables.push_back(std::move(curve));
}

}  // namespace

void add_tables(const ReportData& data, Report& report) {
  intro(data, report);
  if (data.plan) plan_tables(*data.plan, report);
  if (!data.summary) return;
  const ojson& s = *data.summary;
  summary_table(s, report);
  distribution_table(s, report);
  per_model_table(s, report);
  workload_class_table(s, report);
  failure_tables(data, s, report);
  isolation_table(data, report);
  fill_table(s, report);
  extra_tables(s, report);
}

}  // namespace slicelab
