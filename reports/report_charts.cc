// The report's charts: per-policy bars of the headline metrics, CDFs, time series, per-model
// utilization, isolation, fill curves and the planner's capacity curves, as Vega specs.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <tuple>

#include "planning/plan_metrics.h"
#include "reports/downsample.h"
#include "reports/metric_cells.h"
#include "reports/report_content.h"
#include "reports/report_format.h"
#include "reports/report_uncertainty.h"
#include "reports/vega_specs.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

// More lines than this in one chart cannot be told apart: small multiples instead.
constexpr size_t kMaxSeriesInOneChart = 4;
constexpr double kMinDrawnR2 = 0.9;

void add(Report& r, const std::string& sec, const std::string& title, nlohmann::json spec,
         std::string note = "") {
  section(r, sec).charts.push_back({title, std::move(spec), std::move(note)});
}

// The number at dotted key `key` ("queue_delay_s.p99") of a policy object.
std::optional<double> value_at(const ojson& p, std::string_view key) {
  const ojson* at = &p;
  while (!key.empty()) {
    const size_t dot = key.find('.');
    if (!at->is_object()) return std::nullopt;
    const auto it = at->find(std::string(key.substr(0, dot)));
    if (it == at->end()) return std::nullopt;
    at = &*it;
    key = dot == std::string_view::npos ? std::string_view() : key.substr(dot + 1);
  }
  return number_at(*at, {});
}

bool lost_pods(const ojson& p) {
  return number_at(p, {"pods", "failed"}).value_or(0) > 0;
}

// What the headline bars of this summary can say about their noise.
struct Replication {
  size_t seeds = 0;        // 0 or 1: a single run
  bool intervals = false;  // summary.json carries the "uncertainty" block
};

Replication replication_of(const ojson& s) {
  return {seed_count(s), has_uncertainty(s)};
}

// The sentence under a bar chart saying what its error bars span.
std::string interval_note(const Replication& rep, bool seed_range) {
  if (rep.seeds < 2) return "One seed: no interval.";
  if (!rep.intervals)
    return fmt::format("Means over {} seeds; this summary.json carries no intervals.", rep.seeds);
  if (seed_range)
    return fmt::format(
        "Error bars: the range (lowest to highest) over {} seeds, a maximum's "
        "worst case rather than an interval of the mean.",
        rep.seeds);
  return fmt::format("Error bars: 95% confidence interval of the mean over {} seeds.", rep.seeds);
}

// What a policy's bar carries beyond its figure.
struct BarCaveats {
  // Policies that lost pods get "*" after their name and this note (empty: no mark).
  std::string lost_pods_note;
  std::string before;  // a sentence before the interval note (what the figure's share is of)
};

// One bar per policy of the figure at `key`, with its error bar where the summary has one.
// Policies without the figure draw no bar (a zero would read as a measured zero) and are named
// in the note; the chart is left out when none has it.
void bar(const ojson& s, Report& r, const std::string& title, const std::string& x_title,
         const std::string& format, double scale, const std::string& key, BarOptions o = {},
         const BarCaveats& caveats = {}) {
  const Replication rep = replication_of(s);
  std::vector<BarRow> rows;
  std::vector<std::string> missing;
  bool marked = false;
  for (const ojson& p : policies_of(s)) {
    const auto v = value_at(p, key);
    if (!v) {
      missing.push_back(policy_name(p));
      continue;
    }
    const bool mark = !caveats.lost_pods_note.empty() && lost_pods(p);
    marked = marked || mark;
    BarRow row{policy_name(p) + (mark ? " *" : ""), policy_name(p), *v / scale, {}, {}};
    if (const auto e = error_bar(p, key)) {
      row.low = e->low / scale;
      row.high = e->high / scale;
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return;
  o.title = title;
  o.x_title = x_title;
  o.format = format;
  std::vector<std::string> note;
  if (!caveats.before.empty()) note.push_back(caveats.before);
  note.push_back(interval_note(rep, spans_seed_range(key)));
  if (marked) note.push_back(fmt::format("* {}.", caveats.lost_pods_note));
  if (!missing.empty())
    note.push_back(
        fmt::format("No bar for {}: no value in summary.json.", fmt::join(missing, ", ")));
  add(r, "Headline metrics", title, bar_chart_spec(rows, o),
      fmt::format("{}", fmt::join(note, " ")));
}

void headline_bars(const ojson& s, Report& r) {
  bar(s, r, "GPU allocation ratio (time-weighted)", "share of GPU capacity allocated", ".0%", 1,
      "allocation_ratio.time_weighted");
  bar(s, r, "SM utilization", "time-weighted SM utilization", ".0%", 1, "utilization.sm");
  const BarCaveats ran{std::string(kOfPodsThatRan), ""};
  for (const auto& [key, what] : {std::pair{"queue_delay_s", "p99 queueing delay"},
                                  std::pair{"jct_s", "p99 job completion time"}}) {
    const std::string p99 = std::string(key) + ".p99";
    double most = 0;
    std::vector<double> values;
    for (const ojson& p : policies_of(s)) {
      most = std::max(most, value_at(p, p99).value_or(0));
      if (const auto v = value_at(p, p99)) values.push_back(*v);
    }
    BarOptions o;
    o.scale = axis_scale_for(values);
    if (o.scale.type == "linear") {
      const TimeUnit u = time_unit_for(most);
      bar(s, r, fmt::format("{} ({})", what, u.name), u.name, ",.2~f", u.seconds, p99, {}, ran);
    } else {  // over 100x apart: seconds on a log axis labelled as durations
      o.durations = true;
      bar(s, r, fmt::format("{} (log scale)", what), "duration (logarithmic)", ",.2~f", 1, p99, o,
          ran);
    }
  }
  bar(s, r, "SLO attainment", "share of pods with an SLO that met it", ".1%", 1, "slo.attainment",
      {},
      {"the policy lost pods: its failed and never-placed pods with an SLO count as missed",
       "Share of the SLO pods decided (met + missed); pods still within their limit at the end "
       "are left out."});

  // Failures: started and failed, and never placed, stacked per policy.
  std::vector<BarRow> rows;
  for (const ojson& p : policies_of(s)) {
    const auto failed = number_at(p, {"pods", "failed"});
    const auto unsched = number_at(p, {"pods", "unschedulable"});
    const auto pending = number_at(p, {"pods", "pending_at_end"});
    if (!failed && !unsched && !pending) continue;
    rows.push_back({policy_name(p), "failed", failed.value_or(0), {}, {}});
    rows.push_back(
        {policy_name(p), "never placed", unsched.value_or(0) + pending.value_or(0), {}, {}});
  }
  if (!rows.empty()) {
    BarOptions o;
    o.title = "Pods that failed or were never placed";
    o.x_title = "pods";
    o.format = ",d";
    o.stacked = true;
    o.legend_title = "pods";
    const Replication rep = replication_of(s);
    // Stacked parts have no interval of their own drawn: the table below carries them.
    add(r, "Headline metrics", o.title, bar_chart_spec(rows, o),
        rep.seeds < 2
            ? "One seed: no interval."
            : fmt::format("Means over {} seeds; stacked bars draw no interval{}.", rep.seeds,
                          rep.intervals ? " (the Failures table gives each count's)" : ""));
  }

  bool priced = false;
  for (const ojson& p : policies_of(s))
    priced = priced || number_at(p, {"cost_usd"}).value_or(0) > 0;
  double most_cost = 0;
  for (const ojson& p : policies_of(s))
    most_cost = std::max(most_cost, number_at(p, {"cost_usd"}).value_or(0));
  if (priced)  // cents only where they matter
    bar(s, r, "Cost (USD)", "USD for the GPU-hours provisioned",
        most_cost >= 1000 ? ",.0f" : ",.2f", 1, "cost_usd");
  else  // no prices in the catalog: GPU-hours are the cost
    bar(s, r, "Cost (GPU-hours allocated; the catalog has no prices)", "GPU-hours", ",.1f", 1,
        "gpu_hours.allocated");
}

void cdf_chart(const std::vector<PolicyPods>& pods, Report& r, const std::string& sec,
               const std::string& title,
               const std::function<const std::vector<double>&(const PolicyPods&)>& get,
               bool durations, const std::string& x_title = "") {
  double most = 0;
  size_t series = 0;
  for (const PolicyPods& p : pods) {
    for (const double v : get(p)) most = std::max(most, v);
    series += get(p).empty() ? 0 : 1;
  }
  if (series == 0) return;
  const size_t per_series = std::max<size_t>(60, kMaxChartPoints / series);
  std::vector<XYRow> rows;
  for (const PolicyPods& p : pods)
    for (const CdfPoint& c : cdf_points(get(p), per_series))
      rows.push_back({p.policy, c.value, c.fraction, true});
  LineOptions o;
  o.title = title;
  o.y_title = "share of pods";
  o.y_format = ".0%";
  o.step = true;
  o.y_max = 1;
  if (durations) {
    // Seconds on a symmetric log axis (linear below a minute), ticked at durations people
    // read: zero delays and hour-long tails both show.
    o.x_title = "duration (linear up to 1 minute, logarithmic above)";
    o.x_scale = "symlog";
    o.symlog_constant = 60;
    for (const double t : {0.0, 60.0, 300.0, 900.0, 3600.0, 4 * 3600.0, 12 * 3600.0, 86400.0,
                           4 * 86400.0, 14 * 86400.0, 60 * 86400.0})
      if (t <= most * 1.05 || o.x_ticks.empty()) o.x_ticks.push_back(t);
    o.x_label_expr =
        "datum.value < 60 ? format(datum.value, 'd') + 's' : datum.value < 3600 ? "
        "format(datum.value / 60, 'd') + 'm' : datum.value < 86400 ? format(datum.value / 3600, "
        "'d') + 'h' : format(datum.value / 86400, 'd') + 'd'";
  } else {
    o.x_title = x_title;
  }
  add(r, sec, o.title, line_chart_spec(rows, o));
}

void timeseries_chart(const std::vector<PolicyTimeseries>& ts, Report& r, const std::string& title,
                      const std::string& y_title,
                      const std::vector<double> PolicyTimeseries::*field) {
  double most = 0;
  for (const PolicyTimeseries& p : ts) most = std::max(most, p.time_s.back());
  const TimeUnit u = time_unit_for(most);
  const size_t per_series = std::max<size_t>(60, kMaxChartPoints / ts.size());
  std::vector<XYRow> rows;
  for (const PolicyTimeseries& p : ts)
    for (const size_t i : downsample_indices(p.time_s.size(), per_series))
      rows.push_back({p.policy, p.time_s[i] / u.seconds, (p.*field)[i], true});
  LineOptions o;
  o.title = title;
  o.facet = ts.size() > kMaxSeriesInOneChart;  // small multiples: one panel per policy
  o.x_title = "simulated time (" + u.name + ")";
  o.y_title = y_title;
  o.y_format = ".0%";
  o.y_max = 1;
  add(r, "Over time", title, line_chart_spec(rows, o));
}

void per_model_bars(const ojson& s, Report& r) {
  // One model throughout: these bars would repeat the headline ones.
  std::set<std::string> models;
  for (const ojson& p : policies_of(s))
    if (const auto it = p.find("per_model"); it != p.end() && it->is_array())
      for (const ojson& m : *it) models.insert(text_at(m, {"model"}));
  if (models.size() < 2) return;
  for (const auto& [key, title] :
       {std::pair{"sm_utilization", "SM utilization per GPU model"},
        std::pair{"allocation_ratio", "GPU allocation ratio per GPU model"}}) {
    std::vector<BarRow> rows;
    for (const ojson& p : policies_of(s)) {
      const auto it = p.find("per_model");
      if (it == p.end() || !it->is_array()) continue;
      for (const ojson& m : *it)
        if (const auto v = number_at(m, {key}))
          rows.push_back({fmt::format("{} / {}", text_at(m, {"model"}), policy_name(p)),
                          text_at(m, {"model"}), *v});
    }
    if (rows.empty()) continue;
    // Grouped by model so that policies of one model sit together.
    std::stable_sort(rows.begin(), rows.end(),
                     [](const BarRow& a, const BarRow& b) { return a.color < b.color; });
    BarOptions o;
    o.title = title;
    o.x_title = "time-weighted share";
    o.format = ".0%";
    o.legend_title = "GPU model";
    add(r, "Per GPU model", title, bar_chart_spec(rows, o));
  }
}

void fill_charts(const std::vector<PolicyFill>& fill, Report& r) {
  for (const auto& [title, field] :
       {std::pair{"Allocated GPUs as the cluster fills", &PolicyFill::allocated_ratio},
        std::pair{"Fragmented GPUs as the cluster fills", &PolicyFill::fragmented_ratio}}) {
    const size_t per_series = std::max<size_t>(60, kMaxChartPoints / fill.size());
    std::vector<XYRow> rows;
    for (const PolicyFill& p : fill)
      for (const size_t i : downsample_indices(p.arrived_ratio.size(), per_series))
        rows.push_back({p.policy, p.arrived_ratio[i], (p.*field)[i], true});
    LineOptions o;
    o.title = title;
    o.x_title = "GPU demand arrived (share of capacity)";
    o.y_title = "share of GPU capacity";
    o.x_format = ".0%";
    o.y_format = ".0%";
    add(r, "Fill experiment", title, line_chart_spec(rows, o));
  }
}

bool ends_with_s(const std::string& metric) {
  return is_seconds_metric(metric);  // the class of "queue_delay_p99_s[inference]" aside
}

std::string plan_value(const std::string& metric, double v) {
  return ends_with_s(metric) ? duration(v) : figure(v);
}

// One chart per target: its metric against GPUs per policy (the mean over the plan's seeds, a
// bar over the seeds' range at each size), the target line, and each policy's crossing (the
// smallest size from which every larger size evaluated meets the target in every seed) marked
// and labelled; a point is filled where every seed meets the target. The first target's chart also
// draws the fitted curves, dashed.
void capacity_charts(const ojson& plan, Report& r) {
  if (!plan.contains("targets") || !plan["targets"].is_array()) return;
  bool first = true;
  for (const ojson& target : plan["targets"]) {
    const std::string metric = text_at(target, {"metric"});
    const auto bound = number_at(target, {"value"});
    const bool at_most = text_at(target, {"op"}) != ">=";
    if (metric.empty() || !bound) continue;
    const auto meets = [&](double v) { return at_most ? v <= *bound : v >= *bound; };
    LineOptions o;
    std::vector<XYRow> rows;
    std::vector<double> ys = {*bound};
    std::vector<std::string> never;
    for (const ojson& p : policies_of(plan)) {
      const std::string name = policy_name(p);
      // (GPUs, mean, the worst seed's value): a size meets the target only in every seed.
      std::vector<std::tuple<double, double, double>> curve;
      if (p.contains("curve") && p["curve"].is_array())
        for (const ojson& c : p["curve"]) {
          const auto g = number_at(c, {"gpus"});
          // plan.json of older versions has only the first target's "value".
          std::optional<double> v = number_at(c, {"values", metric});
          if (!v && first) v = number_at(c, {"value"});
          if (!g || !v) continue;
          // plan.json 2: the seed range at this size (none in version 1).
          const auto lo = number_at(c, {"estimates", metric, "min"});
          const auto hi = number_at(c, {"estimates", metric, "max"});
          const double worst = at_most ? hi.value_or(*v) : lo.value_or(*v);
          curve.emplace_back(*g, *v, worst);
          if (lo && hi && *lo < *hi) {
            o.spreads.push_back({name, *g, *lo, *hi});
            ys.insert(ys.end(), {*lo, *hi});
          }
        }
      std::sort(curve.begin(), curve.end());
      std::optional<size_t> crossing;
      for (size_t i = curve.size(); i-- > 0;) {
        if (!meets(std::get<2>(curve[i]))) break;
        crossing = i;
      }
      for (const auto& [g, v, worst] : curve) {
        rows.push_back({name, g, v, true});
        o.points.push_back({name, g, v, meets(worst)});
        ys.push_back(v);
      }
      if (crossing)
        o.labels.push_back(
            {name, std::get<0>(curve[*crossing]), std::get<1>(curve[*crossing]),
             fmt::format("{}: {} GPUs", name, count(std::get<0>(curve[*crossing])))});
      else if (!curve.empty())
        never.push_back(name);
      // A fit that explains little of the curve would mislead more than it shows.
      if (first && p.contains("fit") && p["fit"].is_object() && p["fit"].contains("points") &&
          p["fit"]["points"].is_array() && number_at(p["fit"], {"r2"}).value_or(0) >= kMinDrawnR2)
        for (const ojson& f : p["fit"]["points"]) {
          const auto g = number_at(f, {"gpus"});
          const auto v = number_at(f, {"value"});
          if (g && v) {
            o.dashed.push_back({name, *g, *v, true});
            ys.push_back(*v);
          }
        }
    }
    if (rows.empty()) continue;
    o.title = fmt::format("{} against cluster size (target {} {})", metric, text_at(target, {"op"}),
                          plan_value(metric, *bound));
    if (!never.empty()) o.title += fmt::format("; never met by {}", fmt::join(never, ", "));
    o.x_title = "GPUs in the cluster";
    o.x_format = ",d";
    // Shares (SLO attainment) read best on a linear axis whatever their spread.
    if (*std::max_element(ys.begin(), ys.end()) > 1) o.y_scale = axis_scale_for(ys);
    o.y_durations = ends_with_s(metric);
    o.y_title = metric + (o.y_scale.type == "linear" ? "" : " (logarithmic)");
    o.y_rule = *bound;
    o.rule_label = fmt::format("target {} {}", text_at(target, {"op"}), plan_value(metric, *bound));
    o.legend_title = first ? "policy (dashed: fit, R² ≥ 0.9)" : "policy";
    if (!o.spreads.empty()) o.legend_title += "; bars: range over seeds";
    add(r, "Capacity plan", o.title, line_chart_spec(rows, o));
    first = false;
  }
}

}  // namespace

void add_charts(const ReportData& data, Report& report) {
  if (data.plan) capacity_charts(*data.plan, report);
  if (data.summary) headline_bars(*data.summary, report);
  cdf_chart(
      data.pods, report, "Queueing delay and JCT", "CDF of queueing delay",
      [](const PolicyPods& p) -> const std::vector<double>& { return p.queue_delay_s; }, true);
  cdf_chart(
      data.pods, report, "Queueing delay and JCT", "CDF of job completion time",
      [](const PolicyPods& p) -> const std::vector<double>& { return p.jct_s; }, true);
  if (!data.timeseries.empty()) {
    timeseries_chart(data.timeseries, report, "GPU allocation ratio over time",
                     "share of GPU capacity allocated", &PolicyTimeseries::allocation_ratio);
    timeseries_chart(data.timeseries, report, "Fragmentation ratio over time",
                     "share of GPU capacity fragmented", &PolicyTimeseries::fragmentation_ratio);
  }
  if (data.summary) per_model_bars(*data.summary, report);
  if (any_capped_pod(data))
    cdf_chart(
        data.pods, report, "Isolation", "CDF of isolation error per capped pod",
        [](const PolicyPods& p) -> const std::vector<double>& { return p.isolation_error; }, false,
        "isolation error (|achieved SM share - configured cap|)");
  if (!data.fill.empty()) fill_charts(data.fill, report);
}

}  // namespace slicelab
