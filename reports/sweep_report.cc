#include "reports/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "reports/csv_table.h"
#include "reports/json_reader.h"
#include "reports/report_format.h"
#include "reports/sweep_files.h"
#include "reports/vega_specs.h"
#include "sim/metrics/seed_statistics.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// A sweep file states no targets, so the report judges every grid point by the planner's
// usual ones (docs/sweeps.md says so; the report states them too).
struct SweepTarget {
  const char* metric;
  bool at_most;
  double bound;
};
constexpr SweepTarget kTargets[] = {
    {"queue_delay_p99_s", true, 300}, {"failed", true, 0}, {"unschedulable", true, 0}};

// The metrics drawn, and whether more is better (the colour runs the other way).
struct Drawn {
  const char* metric;
  const char* title;
  bool high_is_good;
};
constexpr Drawn kDrawn[] = {
    {"queue_delay_p99_s", "p99 queueing delay", false},
    {"jct_p99_s", "p99 job completion time", false},
    {"slo_attainment", "SLO attainment", true},
    {"failed", "pods failed", false},
    {"unschedulable", "pods never placed", false},
    {"allocation_ratio", "GPU allocation ratio", true},
    {"cost_usd", "cost (USD)", false},
};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string cell_text(const std::string& metric, double v) {
  if (ends_with(metric, "_s")) return duration(v);
  if (metric == "slo_attainment" || ends_with(metric, "_ratio")) return percent(v);
  if (metric == "failed" || metric == "unschedulable") return count(v);
  return v >= 1000 ? fmt::format("{:.0f}", v) : figure(v);
}

std::string scale_label(double v) {
  return fmt::format("x{:g}", v);
}

std::vector<double> numbers(const ojson& grid, const char* key, const fs::path& file) {
  std::vector<double> out;
  if (!grid.contains(key) || !grid[key].is_array())
    throw std::runtime_error(fmt::format("{}: grid.{} is not a list", file.string(), key));
  for (const auto& v : grid[key]) out.push_back(v.get<double>());
  return out;
}

// Means over seeds, keyed by (policy, cluster scale, workload scale) then metric; the spread
// over seeds beside them.
using Key = std::tuple<std::string, double, double>;
using Means = std::map<Key, std::map<std::string, double>>;
using Spreads = std::map<Key, std::map<std::string, Estimate>>;

Means mean_over_seeds(const CsvTable& t, const fs::path& file, Spreads& spreads) {
  const auto need = [&](std::string_view name) {
    const auto c = t.column(name);
    if (!c) throw std::runtime_error(fmt::format("{}: no column '{}'", file.string(), name));
    return *c;
  };
  const size_t policy = need("policy"), cluster = need("cluster_scale"),
               workload = need("workload_scale");
  std::map<Key, std::map<std::string, std::vector<double>>> sums;
  for (const auto& row : t.rows) {
    const auto c = csv_number(row[cluster]);
    const auto w = csv_number(row[workload]);
    if (!c || !w) continue;
    auto& cell = sums[{row[policy], *c, *w}];
    for (size_t i = need("pods") + 1; i < t.header.size(); ++i)
      if (const auto v = csv_number(row[i])) cell[t.header[i]].push_back(*v);
  }
  Means out;
  for (const auto& [k, cell] : sums)
    for (const auto& [m, values] : cell) {
      const Estimate e = estimate(values);
      out[k][m] = e.mean;
      spreads[k][m] = e;
    }
  return out;
}

bool meets(const std::map<std::string, double>& cell) {
  for (const SweepTarget& t : kTargets) {
    const auto it = cell.find(t.metric);
    if (it == cell.end()) return false;
    if (t.at_most ? it->second > t.bound : it->second < t.bound) return false;
  }
  return true;
}

std::string targets_text() {
  std::vector<std::string> parts;
  for (const SweepTarget& t : kTargets)
    parts.push_back(
        fmt::format("{} {} {}", t.metric, t.at_most ? "<=" : ">=",
                    ends_with(t.metric, "_s") ? duration(t.bound) : fmt::format("{:g}", t.bound)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

bool is_sweep_folder(const fs::path& dir) {
  return fs::is_regular_file(dir / "sweep.json") && !fs::exists(dir / "summary.json") &&
         !fs::exists(dir / "plan.json");
}

Report build_sweep_report(const fs::path& dir) {
  const fs::path manifest_file = dir / "sweep.json", csv_file = dir / "sweep.csv";
  const JsonFile f(manifest_file.string());
  check_sweep_manifest(f);
  const ojson& manifest = f.root();
  f.required(f.at_root(), "grid");  // a sweep's, checked above; merge needs none
  const ojson& grid = manifest["grid"];
  const std::vector<double> clusters = numbers(grid, "cluster_scales", manifest_file);
  const std::vector<double> workloads = numbers(grid, "workload_scales", manifest_file);
  std::vector<std::string> policies;
  if (grid.contains("policies") && grid["policies"].is_array())
    for (const auto& p : grid["policies"]) policies.push_back(p.get<std::string>());
  Spreads spreads;
  const Means means =
      mean_over_seeds(parse_csv(read_text_file(csv_file.string(), kMaxCsvBytes), csv_file.string()),
                      csv_file, spreads);

  Report r;
  r.title = fmt::format("slicelab sweep report: {}", manifest.value("name", ""));
  const size_t seeds =
      grid.contains("seeds") && grid["seeds"].is_array() ? grid["seeds"].size() : 1;
  r.intro.push_back(fmt::format(
      "{} policies x {} cluster scales x {} workload scales x {} seeds of {} ({} rows); figures "
      "are means over seeds{}.",
      policies.size(), clusters.size(), workloads.size(), seeds, manifest.value("scenario", ""),
      manifest.value("rows", 0),
      seeds > 1 ? ", ± the half width of their 95% confidence interval" : ""));
  r.intro.push_back(fmt::format("Results folder: {}", dir.string()));

  ReportSection& where = section(r, "Where each policy meets the targets");
  where.paragraphs.push_back(fmt::format(
      "A grid point meets the targets when its means hold {} (the sweep file states no "
      "targets: these are the planner's usual ones). Outlined green in the heatmaps below.",
      targets_text()));
  ReportTable t;
  t.title = "Smallest cluster scale that meets the targets";
  t.note = "Per workload scale (rows) and policy (columns); none = not even the largest.";
  t.head = {"workload scale"};
  t.head.insert(t.head.end(), policies.begin(), policies.end());
  for (const double w : workloads) {
    std::vector<std::string> row = {scale_label(w)};
    for (const std::string& p : policies) {
      std::optional<double> smallest;
      // The smallest scale from which every larger one meets them too.
      for (auto c = clusters.rbegin(); c != clusters.rend(); ++c) {
        const auto it = means.find({p, *c, w});
        if (it == means.end() || !meets(it->second)) break;
        smallest = *c;
      }
      row.push_back(smallest ? scale_label(*smallest)
                             : fmt::format("none up to {}", scale_label(clusters.back())));
    }
    t.rows.push_back(std::move(row));
  }
  for (const std::string& p : policies) {
    // Where it stops: the first workload scale the largest cluster cannot serve.
    std::optional<double> last_ok, first_fail;
    for (const double w : workloads) {
      const auto it = means.find({p, clusters.back(), w});
      const bool ok = it != means.end() && meets(it->second);
      if (ok && !first_fail) last_ok = w;
      if (!ok && !first_fail) first_fail = w;
    }
    if (!first_fail)
      where.paragraphs.push_back(
          fmt::format("{} meets the targets at every workload scale on the largest cluster ({}).",
                      p, scale_label(clusters.back())));
    else if (!last_ok)
      where.paragraphs.push_back(fmt::format(
          "{} misses the targets at every workload scale, even on the largest cluster ({}).", p,
          scale_label(clusters.back())));
    else
      where.paragraphs.push_back(fmt::format(
          "{} stops meeting the targets at workload {} (on the largest cluster, {}); it meets "
          "them up to workload {}.",
          p, scale_label(*first_fail), scale_label(clusters.back()), scale_label(*last_ok)));
  }
  where.tables.push_back(std::move(t));

  std::vector<std::string> x_order, y_order;
  for (const double c : clusters) x_order.push_back(scale_label(c));
  for (const double w : workloads) y_order.push_back(scale_label(w));
  for (const Drawn& d : kDrawn) {
    std::vector<HeatCell> cells;
    std::vector<double> values;
    for (const std::string& p : policies)
      for (const double w : workloads)
        for (const double c : clusters) {
          const auto it = means.find({p, c, w});
          if (it == means.end()) continue;
          const auto v = it->second.find(d.metric);
          if (v == it->second.end()) continue;
          // ± the 95% interval where the seeds differ (none from one seed).
          std::string text = cell_text(d.metric, v->second);
          const Estimate& e = spreads.at({p, c, w}).at(d.metric);
          if (e.half_width && *e.half_width > 0) text += " ±" + cell_text(d.metric, *e.half_width);
          cells.push_back({p, scale_label(c), scale_label(w), v->second, text, meets(it->second)});
          values.push_back(v->second);
        }
    if (cells.empty()) continue;
    // The same everywhere: a sentence says so, rather than a chart of one colour.
    if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; })) {
      section(r, "Metrics across the grid")
          .paragraphs.push_back(
              fmt::format("{}: {} at every grid point.", d.title, cell_text(d.metric, values[0])));
      continue;
    }
    HeatmapOptions o;
    o.title = fmt::format("{} by cluster and workload scale", d.title);
    o.x_title = "cluster scale";
    o.y_title = "workload scale";
    o.legend_title = d.metric;
    o.x_order = x_order;
    o.y_order = y_order;
    o.scale = axis_scale_for(values);
    o.high_is_good = d.high_is_good;
    section(r, "Metrics across the grid").charts.push_back({o.title, heatmap_spec(cells, o)});
  }
  return r;
}

}  // namespace slicelab
