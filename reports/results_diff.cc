#include "reports/results_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "reports/atomic_folder.h"
#include "reports/json_reader.h"
#include "reports/metric_cells.h"
#include "reports/output_values.h"
#include "reports/policy_choice.h"
#include "reports/report_format.h"
#include "reports/report_html.h"
#include "reports/report_markdown.h"
#include "reports/results_writer.h"
#include "reports/summary_json_check.h"
#include "reports/vega_bundle.h"
#include "reports/vega_specs.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr const char* kOneSeed = "one seed: noise unknown";

// A summary.json checked against its format, with its policies by name.
struct Summary {
  ojson doc;
  std::unordered_map<std::string, const ojson*> by_name;

  const ojson* policy(const std::string& name) const {
    const auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
};

Summary read_summary(const fs::path& file) {
  JsonFile f(file.string());
  check_summary_json(f);
  Summary s{f.take_root(), {}};
  // Names are unique (checked): an index keeps diff linear in the policies.
  for (const ojson& p : policies_of(s.doc)) s.by_name.emplace(policy_name(p), &p);
  return s;
}

struct Folder {
  Summary summary;
  std::vector<Summary> seeds;  // seed-<n>/summary.json, in the order summary.json lists them
};

Folder read_folder(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw std::runtime_error(
        fmt::format("{}: not a results folder (no such folder)", dir.string()));
  const fs::path file = dir / "summary.json";
  if (!fs::is_regular_file(file))
    throw std::runtime_error(fmt::format(
        "{}: no summary.json (diff compares the results folders of run or compare)", dir.string()));
  Folder f;
  f.summary = read_summary(file);
  if (const auto it = f.summary.doc.find("seeds"); it != f.summary.doc.end() && it->is_array())
    for (const auto& seed : *it) {
      const fs::path s = dir / fmt::format("seed-{}", seed.dump()) / "summary.json";
      if (fs::is_regular_file(s)) f.seeds.push_back(read_summary(s));
    }
  return f;
}

// Mean and sample variance of a metric over the seeds that hold it.
struct Spread {
  size_t n = 0;
  double variance = 0;
};
Spread spread_of(const std::vector<Summary>& seeds, const std::string& policy, const RunMetric& m) {
  std::vector<double> v;
  for (const Summary& s : seeds)
    if (const ojson* p = s.policy(policy))
      if (const auto x = json_metric(*p, m)) v.push_back(*x);
  Spread out{v.size(), 0};
  if (v.size() < 2) return out;
  double mean = 0;
  for (const double x : v) mean += x / static_cast<double>(v.size());
  for (const double x : v) out.variance += (x - mean) * (x - mean);
  out.variance /= static_cast<double>(v.size() - 1);
  return out;
}

std::string signed_value(const RunMetric& m, double v) {
  if (v == 0) return "0";
  // A change of a share is in points, not to be read as a relative change.
  if (m.unit == MetricUnit::kShare) return fmt::format("{:+.1f} pt", 100 * v);
  const std::string text = metric_phrase_value(m, std::abs(v));
  return (v > 0 ? "+" : "-") + text;
}

std::string percent_text(std::optional<double> p) {
  if (!p) return "-";
  return fmt::format("{:+.1f}%", *p);
}

std::string noise_text(const DiffRow& r) {
  if (!r.beyond_noise) return kOneSeed;
  return *r.beyond_noise ? "beyond noise" : "within noise";
}

bool changed(const DiffRow& r) {
  if (r.a.has_value() != r.b.has_value()) return true;
  return r.a && std::abs(*r.b - *r.a) > 1e-12 * std::max(1.0, std::abs(*r.a));
}

ReportTable table_of(const ResultsDiff& d, bool all) {
  ReportTable t;
  t.head = {"policy", "metric", "A", "B", "change", "change %", "noise"};
  for (const DiffRow& r : d.rows) {
    if (!all && !changed(r)) continue;
    const auto c = r.change();
    t.rows.push_back(
        {r.policy, std::string(r.metric->json.empty() ? r.metric->column.head : r.metric->json),
         metric_phrase_value(*r.metric, r.a), metric_phrase_value(*r.metric, r.b),
         c ? signed_value(*r.metric, *c) : "-", percent_text(r.change_percent()), noise_text(r)});
  }
  return t;
}

}  // namespace

std::optional<double> DiffRow::change() const {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> DiffRow::change_percent() const {
  if (!a || !b || *a == 0) return std::nullopt;
  return 100 * (*b - *a) / std::abs(*a);
}

ResultsDiff diff_results(const fs::path& a, const fs::path& b) {
  const Folder fa = read_folder(a), fb = read_folder(b);
  ResultsDiff d;
  d.a_dir = a.string(), d.b_dir = b.string();
  d.a_seeds = std::max<size_t>(1, fa.seeds.size());
  d.b_seeds = std::max<size_t>(1, fb.seeds.size());
  for (const ojson& p : policies_of(fb.summary.doc))
    if (!fa.summary.policy(policy_name(p))) d.only_in_b.push_back(policy_name(p));
  for (const ojson& pa : policies_of(fa.summary.doc)) {
    const std::string name = policy_name(pa);
    const ojson* pb = fb.summary.policy(name);
    if (!pb) {
      d.only_in_a.push_back(name);
      continue;
    }
    for (const RunMetric& m : run_metrics()) {
      if (m.block != MetricBlock::kNumber) continue;
      DiffRow r{name, &m, json_metric(pa, m), json_metric(*pb, m), std::nullopt, std::nullopt};
      if (!r.a && !r.b) continue;
      // Two standard errors of the difference of the means, from the sides that hold several
      // seeds (a side with one seed borrows the other's spread).
      const Spread sa = spread_of(fa.seeds, name, m), sb = spread_of(fb.seeds, name, m);
      if (r.a && r.b && (sa.n > 1 || sb.n > 1)) {
        const double va = sa.n > 1 ? sa.variance : sb.variance;
        const double vb = sb.n > 1 ? sb.variance : sa.variance;
        const double se = std::sqrt(va / static_cast<double>(std::max<size_t>(sa.n, 1)) +
                                    vb / static_cast<double>(std::max<size_t>(sb.n, 1)));
        r.noise = 2 * se;
        r.beyond_noise = std::abs(*r.b - *r.a) > *r.noise;
      }
      d.rows.push_back(std::move(r));
    }
  }
  return d;
}

std::string diff_table(const ResultsDiff& d, bool wide) {
  std::string out =
      fmt::format("A: {} ({})\nB: {} ({})\n", d.a_dir,
                  d.a_seeds > 1 ? fmt::format("{} seeds", d.a_seeds) : "one seed", d.b_dir,
                  d.b_seeds > 1 ? fmt::format("{} seeds", d.b_seeds) : "one seed");
  if (!d.noise_known())
    out += "one seed on each side: noise unknown (a compare with seeds: gives it)\n";
  for (const std::string& p : d.only_in_a) out += fmt::format("only in A: {}\n", p);
  for (const std::string& p : d.only_in_b) out += fmt::format("only in B: {}\n", p);
  ReportTable t = table_of(d, wide);
  if (!d.noise_known()) {
    t.head.pop_back();
    for (auto& row : t.rows) row.pop_back();
  }
  std::vector<size_t> w(t.head.size());
  for (size_t c = 0; c < t.head.size(); ++c) {
    w[c] = t.head[c].size();
    for (const auto& row : t.rows) w[c] = std::max(w[c], row[c].size());
  }
  // The metric column is the one that can grow: its keys are cut to keep 120 columns.
  size_t total = 0;
  for (const size_t x : w) total += x + 2;
  if (total - 2 > kTerminalColumns && w[1] > 24) w[1] -= std::min(w[1] - 24, total - 2 - 120);
  out += "\n";
  const auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string cell = cells[c];
      if (cell.size() > w[c]) cell = cell.substr(0, w[c] - 1) + "~";
      out += c < 2 || (c + 1 == cells.size() && d.noise_known())
                 ? fmt::format("{:<{}}", cell, w[c])
                 : fmt::format("{:>{}}", cell, w[c]);
      out += c + 1 < cells.size() ? "  " : "\n";
    }
    while (out.size() > 1 && out[out.size() - 2] == ' ') out.erase(out.size() - 2, 1);
  };
  line(t.head);
  std::vector<std::string> rule;
  for (const size_t x : w) rule.push_back(std::string(x, '-'));
  line(rule);
  for (const auto& row : t.rows) line(row);
  const size_t same = static_cast<size_t>(
      std::count_if(d.rows.begin(), d.rows.end(), [](const DiffRow& r) { return !changed(r); }));
  if (!wide && same > 0) out += fmt::format("({} unchanged figures with --wide)\n", same);
  if (t.rows.empty() && same == 0) out += "(no policy in both folders)\n";
  return out;
}

ojson diff_json(const ResultsDiff& d) {
  ojson j;
  j["format"] = "slicelab.diff/1";
  j["a"] = {{"folder", d.a_dir}, {"seeds", d.a_seeds}};
  j["b"] = {{"folder", d.b_dir}, {"seeds", d.b_seeds}};
  j["noise"] =
      d.noise_known() ? "beyond_noise: |change| > two standard errors over the seeds" : kOneSeed;
  j["only_in_a"] = d.only_in_a;
  j["only_in_b"] = d.only_in_b;
  ojson policies = ojson::array();
  for (const DiffRow& r : d.rows) {
    if (policies.empty() || policies.back()["name"] != r.policy)
      policies.push_back({{"name", r.policy}, {"metrics", ojson::array()}});
    // Whole units (pods, counts) as integers, as summary.json writes them.
    const auto number = [&](std::optional<double> v) {
      if (v && is_whole(r.metric->unit) && std::abs(*v) < 9e15)
        return ojson(static_cast<int64_t>(std::llround(*v)));
      return json_value(v);
    };
    policies.back()["metrics"].push_back(
        {{"key", r.metric->json.empty() ? r.metric->column.head : r.metric->json},
         {"unit", unit_name(r.metric->unit)},
         {"a", number(r.a)},
         {"b", number(r.b)},
         {"change", number(r.change())},
         {"change_percent", json_value(r.change_percent())},
         {"noise", json_value(r.noise)},
         {"beyond_noise", r.beyond_noise ? ojson(*r.beyond_noise) : ojson(nullptr)}});
  }
  j["policies"] = std::move(policies);
  return j;
}

Report diff_report(const ResultsDiff& d) {
  Report r;
  r.title = "slicelab diff";
  r.intro.push_back(
      fmt::format("A (before): {} ({} seed{}).", d.a_dir, d.a_seeds, d.a_seeds > 1 ? "s" : ""));
  r.intro.push_back(
      fmt::format("B (after): {} ({} seed{}).", d.b_dir, d.b_seeds, d.b_seeds > 1 ? "s" : ""));
  r.intro.push_back(d.noise_known()
                        ? "Beyond noise: the change is larger than two standard errors of the "
                          "difference of the seed means."
                        : "One seed on each side: noise unknown.");
  for (const std::string& p : d.only_in_a) r.intro.push_back("Only in A: " + p + ".");
  for (const std::string& p : d.only_in_b) r.intro.push_back("Only in B: " + p + ".");
  ReportSection& changes = section(r, "Changes");
  ReportTable t = table_of(d, false);
  t.title = "Figures that changed";
  t.note = "change = B - A; change % = change / |A|.";
  if (!t.rows.empty())
    changes.tables.push_back(std::move(t));
  else
    changes.paragraphs.push_back("No figure changed.");
  // The headline figures' change in percent, one bar per policy and figure.
  std::vector<BarRow> bars;
  for (const DiffRow& row : d.rows)
    if (!row.metric->column.head.empty() && row.metric->column.report)
      if (const auto p = row.change_percent(); p && changed(row))
        bars.push_back(
            {fmt::format("{} · {}", row.metric->column.head, row.policy), row.policy, *p});
  if (!bars.empty()) {
    BarOptions o;
    o.title = "Change of the headline figures (B vs A)";
    o.x_title = "change (%)";
    o.format = "+,.1f";
    o.legend_title = "policy";
    changes.charts.push_back({o.title, bar_chart_spec(bars, o)});
  }
  ReportTable all = table_of(d, true);
  all.title = "Every figure";
  all.note = "Every metric of summary.json both folders hold, per policy.";
  if (!all.rows.empty()) section(r, "Every figure").tables.push_back(std::move(all));
  return r;
}

void write_diff(const std::string& dir, const ResultsDiff& d, bool force) {
  const Report report = diff_report(d);
  const std::string html = report_html(report, vega_bundle_js(find_vega_dir()));
  write_folder_atomically(dir, force, [&](const fs::path& tmp) {
    write_text_file(tmp / "diff.json", diff_json(d).dump(2) + "\n");
    write_text_file(tmp / "diff.md", report_markdown(report));
    write_text_file(tmp / "diff.html", html);
  });
}

}  // namespace slicelab
