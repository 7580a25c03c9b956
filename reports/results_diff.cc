#include "reports/results_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "reports/atomic_folder.h"
#include "reports/json_reader.h"
#include "reports/metric_cells.h"
#include "reports/metric_direction.h"
#include "reports/output_values.h"
#include "reports/policy_choice.h"
#include "reports/report_format.h"
#include "reports/report_html.h"
#include "reports/report_markdown.h"
#include "reports/results_writer.h"
#include "reports/summary_json_check.h"
#include "reports/vega_bundle.h"
#include "reports/vega_specs.h"
#include "sim/metrics/decide_spec.h"
#include "sim/metrics/seed_statistics.h"
#include "sim/metrics/welch_difference.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// A summary.json checked against its format, with its policies by name.
struct Summary {
  ojson doc;
  std::unordered_map<std::string, size_t> by_name;  // index in "policies" (copies stay valid)

  const ojson* policy(const std::string& name) const {
    const auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &policies_of(doc)[it->second];
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const ojson& p : policies_of(doc)) out.push_back(policy_name(p));
    return out;
  }
};

Summary read_summary(const fs::path& file) {
  JsonFile f(file.string());
  check_summary_json(f);
  Summary s{f.take_root(), {}};
  // Names are unique (checked): an index keeps diff linear in the policies.
  const ojson& policies = policies_of(s.doc);
  for (size_t i = 0; i < policies.size(); ++i) s.by_name.emplace(policy_name(policies[i]), i);
  return s;
}

// A results folder: its summary.json and the runs whose figures the noise comes from.
struct Folder {
  std::string dir;
  Summary summary;
  // One per seed: seed-<n>/summary.json in the order summary.json lists the seeds, or the
  // folder's own summary.json for a single run. Empty: a seeds folder without its seed folders.
  std::vector<Summary> runs;
  std::vector<uint64_t> ids;  // the runs' seeds; empty for a single run without a "seed"
};

Folder read_folder(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw InputError(fmt::format("{}: not a results folder (no such folder)", dir.string()));
  const fs::path file = dir / "summary.json";
  if (!fs::is_regular_file(file))
    throw InputError(fmt::format(
        "{}: no summary.json (diff compares the results folders of run or compare)", dir.string()));
  Folder f;
  f.dir = dir.string();
  f.summary = read_summary(file);
  if (const auto it = f.summary.doc.find("seeds"); it != f.summary.doc.end() && it->is_array()) {
    for (const auto& seed : *it) {
      const fs::path s = dir / fmt::format("seed-{}", seed.dump()) / "summary.json";
      if (!fs::is_regular_file(s)) continue;
      f.runs.push_back(read_summary(s));
      if (seed.is_number_unsigned()) f.ids.push_back(seed.get<uint64_t>());
    }
    if (f.ids.size() != f.runs.size()) f.ids.clear();
  } else {
    f.runs.push_back(f.summary);
    if (const auto seed = f.summary.doc.find("seed");
        seed != f.summary.doc.end() && seed->is_number_unsigned())
      f.ids.push_back(seed->get<uint64_t>());
  }
  return f;
}

// --seeds: keeps the listed seeds (in the list's order) or the first N runs.
void keep_seeds(Folder& f, const SeedsOption& seeds) {
  if (seeds.count) {
    if (f.runs.size() < *seeds.count)
      throw InputError(fmt::format("--seeds {}: {} holds {} seed run{}", *seeds.count, f.dir,
                                   f.runs.size(), f.runs.size() == 1 ? "" : "s"));
    f.runs.resize(*seeds.count);
    if (!f.ids.empty()) f.ids.resize(*seeds.count);
    return;
  }
  if (f.ids.empty())
    throw InputError(fmt::format("--seeds: {} holds no runs by seed (no seed-<n>/ folders{})",
                                 f.dir, f.runs.empty() ? "" : " and no \"seed\""));
  std::vector<Summary> runs;
  for (const uint64_t s : seeds.list) {
    const auto it = std::find(f.ids.begin(), f.ids.end(), s);
    if (it == f.ids.end())
      throw InputError(
          fmt::format("--seeds: {} holds {}, not seed {}", f.dir, seeds_text(f.ids), s));
    runs.push_back(std::move(f.runs[static_cast<size_t>(it - f.ids.begin())]));
  }
  f.runs = std::move(runs);
  f.ids = seeds.list;
}

std::string names_text(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void require_policy(const Folder& f, const std::string& name) {
  if (!f.summary.policy(name))
    throw InputError(fmt::format("{}: no policy named '{}' (the folder holds: {})", f.dir, name,
                                 names_text(f.summary.names())));
}

// A scenario figure for the warning: the value at `path`, as text; none when absent.
std::optional<std::string> field(const ojson& doc, std::initializer_list<const char*> path) {
  const ojson* j = &doc;
  for (const char* key : path) {
    if (!j->is_object() || !j->contains(key)) return std::nullopt;
    j = &(*j)[key];
  }
  if (j->is_null()) return std::nullopt;
  return j->is_string() ? j->get<std::string>() : j->dump();
}

// What the two runs were asked to do, where both summaries say it and they differ.
std::optional<std::string> scenario_difference(const Folder& a, const Folder& b) {
  struct Field {
    const char* label;
    std::initializer_list<const char*> path;
  };
  const Field fields[] = {{"scenario", {"scenario"}},
                          {"workload source", {"workload", "source"}},
                          {"workload pods", {"workload", "pods"}},
                          {"cluster nodes", {"cluster", "nodes"}},
                          {"cluster GPUs", {"cluster", "gpus"}}};
  std::string parts;
  for (const Field& f : fields) {
    const auto x = field(a.summary.doc, f.path), y = field(b.summary.doc, f.path);
    if (x && y && *x != *y)
      parts += fmt::format("{}{} {} against {}", parts.empty() ? "" : "; ", f.label, *x, *y);
  }
  if (parts.empty()) return std::nullopt;
  return "the two sides ran different scenarios (" + parts +
         "): a change is not the policy's alone";
}

std::string metric_key(const RunMetric& m) {
  return std::string(m.json.empty() ? m.column.head : m.json);
}

// The decide: short name of a row ("queue_p99"), else its summary.json key.
std::string short_name(const RunMetric& m) {
  const std::string names = decide_metric_names();
  for (size_t start = 0; start < names.size();) {
    size_t end = names.find(", ", start);
    if (end == std::string::npos) end = names.size();
    const std::string name = names.substr(start, end - start);
    if (decide_metric(name) == &m) return name;
    start = end + 2;
  }
  return metric_key(m);
}

// The row's value per run, in run order.
std::vector<std::optional<double>> run_values(const Folder& f, const std::string& policy,
                                              const RunMetric& m) {
  std::vector<std::optional<double>> v;
  for (const Summary& s : f.runs) {
    const ojson* p = s.policy(policy);
    v.push_back(p ? json_metric(*p, m) : std::nullopt);
  }
  return v;
}

std::vector<double> held(const std::vector<std::optional<double>>& v) {
  std::vector<double> out;
  for (const auto& x : v)
    if (x) out.push_back(*x);
  return out;
}

// A side's figure: the mean over its runs that hold one; summary.json's without runs.
std::optional<double> side_value(const Folder& f, const std::string& policy, const RunMetric& m,
                                 const std::vector<std::optional<double>>& runs) {
  if (f.runs.empty()) {
    const ojson* p = f.summary.policy(policy);
    return p ? json_metric(*p, m) : std::nullopt;
  }
  const std::vector<double> v = held(runs);
  if (v.empty()) return std::nullopt;
  return estimate(v).mean;
}

bool changed(const DiffRow& r) {
  if (r.a.has_value() != r.b.has_value()) return true;
  return r.a && std::abs(*r.b - *r.a) > 1e-12 * std::max(1.0, std::abs(*r.a));
}

Verdict verdict_of(const DiffRow& r) {
  if (!changed(r)) return Verdict::kUnchanged;
  if (!r.a || !r.b || !r.beyond_noise) return Verdict::kChanged;
  if (!*r.beyond_noise) return Verdict::kWithinNoise;
  const auto better = better_direction(*r.metric);
  if (!better) return Verdict::kChanged;
  return (*r.b > *r.a) == (*better == Better::kHigher) ? Verdict::kBetter : Verdict::kWorse;
}

std::string signed_value(const RunMetric& m, double v) {
  if (v == 0) return "0";
  // A change of a share is in points, not to be read as a relative change.
  if (m.unit == MetricUnit::kShare) return fmt::format("{:+.1f} pt", 100 * v);
  const std::string text = metric_phrase_value(m, std::abs(v));
  return (v > 0 ? "+" : "-") + text;
}

std::string magnitude(const RunMetric& m, double v) {
  if (m.unit == MetricUnit::kShare) return fmt::format("{:.1f} pt", 100 * v);
  return metric_phrase_value(m, v);
}

std::string percent_text(std::optional<double> p) {
  if (!p) return "-";
  return fmt::format("{:+.1f}%", *p);
}

std::string test_text(const ResultsDiff& d) {
  switch (d.test) {
    case NoiseTest::kPaired:
      return fmt::format("{} seeds, paired", d.a.runs);
    case NoiseTest::kWelch:
      return fmt::format("{} seed{} against {}, unpaired (Welch)", d.b.runs,
                         d.b.runs == 1 ? "" : "s", d.a.runs);
    case NoiseTest::kNone:
      break;
  }
  return "noise unknown";
}

std::string test_sentence(const ResultsDiff& d) {
  switch (d.test) {
    case NoiseTest::kPaired:
      return fmt::format(
          "Both sides ran the same {} seeds: each figure's change is tested seed by seed (paired "
          "differences, Student t at 95%); beyond noise: the 95% interval of the mean difference "
          "excludes 0.",
          d.a.runs);
    case NoiseTest::kWelch:
      return "The two sides ran different seeds: each figure's change is tested by Welch's "
             "unpaired t interval at 95% (a side with one seed borrows the other's spread); "
             "beyond noise: the interval excludes 0.";
    case NoiseTest::kNone:
      break;
  }
  return "One seed on each side: noise unknown (a compare with seeds gives it); a change is "
         "reported as changed, never as better or worse.";
}

std::string folder_text(const DiffFolder& f) {
  if (!f.seeds.empty()) return fmt::format("{}, {}", f.dir, seeds_text(f.seeds));
  if (f.runs > 1) return fmt::format("{}, {} seed runs", f.dir, f.runs);
  return fmt::format("{}, one seed", f.dir);
}

ReportTable table_of(const ResultsDiff& d, bool all) {
  ReportTable t;
  t.head = {"policy", "metric", "A", "B", "change", "change %"};
  if (d.noise_known()) t.head.push_back("noise 95%");
  t.head.push_back("verdict");
  for (const DiffRow& r : d.rows) {
    if (!all && !changed(r)) continue;
    const auto c = r.change();
    std::vector<std::string> row = {r.pair(),
                                    metric_key(*r.metric),
                                    metric_phrase_value(*r.metric, r.a),
                                    metric_phrase_value(*r.metric, r.b),
                                    c ? signed_value(*r.metric, *c) : "-",
                                    percent_text(r.change_percent())};
    if (d.noise_known()) row.push_back(r.noise ? magnitude(*r.metric, *r.noise) : "-");
    row.emplace_back(verdict_name(r.verdict));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

DiffSide parse_diff_side(std::string_view text) {
  std::error_code ec;
  if (fs::is_directory(fs::path(text), ec)) return {fs::path(text), std::nullopt};
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos && colon > 0) {
    const std::string_view folder = text.substr(0, colon), policy = text.substr(colon + 1);
    if (!policy.empty() && policy.find('/') == std::string_view::npos &&
        fs::is_directory(fs::path(folder), ec))
      return {fs::path(folder), std::string(policy)};
  }
  return {fs::path(text), std::nullopt};
}

std::string_view noise_test_name(NoiseTest t) {
  switch (t) {
    case NoiseTest::kPaired:
      return "paired";
    case NoiseTest::kWelch:
      return "welch";
    case NoiseTest::kNone:
      break;
  }
  return "none";
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kBetter:
      return "better";
    case Verdict::kWorse:
      return "worse";
    case Verdict::kWithinNoise:
      return "within noise";
    case Verdict::kChanged:
      return "changed";
    case Verdict::kUnchanged:
      break;
  }
  return "unchanged";
}

std::string DiffRow::pair() const {
  return a_policy == b_policy ? a_policy : a_policy + " -> " + b_policy;
}

std::optional<double> DiffRow::change() const {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> DiffRow::change_percent() const {
  if (!a || !b || *a == 0) return std::nullopt;
  return 100 * (*b - *a) / std::abs(*a);
}

ResultsDiff diff_results(const fs::path& a, const fs::path& b) {
  return diff_results(DiffSide{a, std::nullopt}, DiffSide{b, std::nullopt});
}

ResultsDiff diff_results(const DiffSide& sa, const DiffSide& sb,
                         const std::optional<SeedsOption>& seeds) {
  Folder fa = read_folder(sa.folder), fb = read_folder(sb.folder);
  if (seeds) {
    keep_seeds(fa, *seeds);
    keep_seeds(fb, *seeds);
  }
  ResultsDiff d;
  d.a = {fa.dir, fa.ids, std::max<size_t>(1, fa.runs.size())};
  d.b = {fb.dir, fb.ids, std::max<size_t>(1, fb.runs.size())};

  // Which policies face which.
  std::vector<std::pair<std::string, std::string>> pairs;
  if (sa.policy || sb.policy) {
    d.by_name = false;
    const std::string pa = sa.policy ? *sa.policy : *sb.policy;
    const std::string pb = sb.policy ? *sb.policy : *sa.policy;
    require_policy(fa, pa);
    require_policy(fb, pb);
    pairs.emplace_back(pa, pb);
  } else {
    for (const std::string& name : fb.summary.names())
      if (!fa.summary.policy(name)) d.only_in_b.push_back(name);
    for (const std::string& name : fa.summary.names()) {
      if (fb.summary.policy(name))
        pairs.emplace_back(name, name);
      else
        d.only_in_a.push_back(name);
    }
    if (pairs.empty())
      throw InputError(fmt::format(
          "{} and {} hold no policy of the same name (A: {}; B: {}): name the two to compare as "
          "A:policy B:policy, e.g. slicelab diff {}:{} {}:{}",
          fa.dir, fb.dir, names_text(fa.summary.names()), names_text(fb.summary.names()), fa.dir,
          fa.summary.names().empty() ? "POLICY" : fa.summary.names().front(), fb.dir,
          fb.summary.names().empty() ? "POLICY" : fb.summary.names().front()));
  }

  // The test: paired when both sides hold the same seeds (two or more), in A's order.
  if (!fa.runs.empty() && !fb.runs.empty()) {
    const std::set<uint64_t> ia(fa.ids.begin(), fa.ids.end()), ib(fb.ids.begin(), fb.ids.end());
    if (!fa.ids.empty() && ia == ib && fa.runs.size() >= 2 && fb.runs.size() == fa.runs.size()) {
      d.test = NoiseTest::kPaired;
      std::vector<Summary> runs;
      for (const uint64_t s : fa.ids) {
        const auto it = std::find(fb.ids.begin(), fb.ids.end(), s);
        runs.push_back(std::move(fb.runs[static_cast<size_t>(it - fb.ids.begin())]));
      }
      fb.runs = std::move(runs);
      fb.ids = fa.ids;
      d.b.seeds = fb.ids;
    } else if (fa.runs.size() >= 2 || fb.runs.size() >= 2) {
      d.test = NoiseTest::kWelch;
    }
  }

  if (const auto why = scenario_difference(fa, fb)) d.warnings.push_back(*why);
  if (!fa.ids.empty() && !fb.ids.empty() && d.test != NoiseTest::kPaired &&
      std::set<uint64_t>(fa.ids.begin(), fa.ids.end()) !=
          std::set<uint64_t>(fb.ids.begin(), fb.ids.end()))
    d.warnings.push_back(fmt::format(
        "the two sides ran different seeds: A {}, B {}; the workloads differ seed by seed, so "
        "the {}",
        seeds_text(fa.ids), seeds_text(fb.ids),
        d.test == NoiseTest::kWelch ? "unpaired test (Welch) judges the noise"
                                    : "change holds the workload's variation too"));

  for (const auto& [pa, pb] : pairs) {
    for (const RunMetric& m : run_metrics()) {
      if (m.block != MetricBlock::kNumber) continue;
      const auto va = run_values(fa, pa, m), vb = run_values(fb, pb, m);
      DiffRow r;
      r.a_policy = pa, r.b_policy = pb, r.metric = &m;
      r.a = side_value(fa, pa, m, va);
      r.b = side_value(fb, pb, m, vb);
      if (!r.a && !r.b) continue;
      if (r.a && r.b) {
        if (d.test == NoiseTest::kPaired) {
          // b - a seed by seed: the workload's own variation cancels.
          const PairedDifference p = paired_difference(vb, va);
          r.beyond_noise = p.beyond_noise;
          if (p.beyond_noise) r.noise = p.difference.half_width.value_or(0);
        } else if (d.test == NoiseTest::kWelch) {
          const UnpairedDifference u = welch_difference(held(va), held(vb));
          r.beyond_noise = u.beyond_noise;
          r.noise = u.half_width;
        }
      }
      r.verdict = verdict_of(r);
      d.rows.push_back(std::move(r));
    }
  }
  return d;
}

std::string verdict_line(const ResultsDiff& d) {
  const bool several = !d.rows.empty() && d.rows.front().pair() != d.rows.back().pair();
  std::vector<std::string> better, worse, changed_names;
  size_t within = 0, unchanged = 0;
  for (const DiffRow& r : d.rows) {
    const std::string name =
        several ? fmt::format("{} ({})", short_name(*r.metric), r.pair()) : short_name(*r.metric);
    switch (r.verdict) {
      case Verdict::kBetter:
        better.push_back(name);
        break;
      case Verdict::kWorse:
        worse.push_back(name);
        break;
      case Verdict::kWithinNoise:
        ++within;
        break;
      case Verdict::kChanged:
        changed_names.push_back(name);
        break;
      case Verdict::kUnchanged:
        ++unchanged;
        break;
    }
  }
  // Long lists are cut: the table names every figure.
  const auto list = [](const std::vector<std::string>& names) {
    constexpr size_t kShown = 6;
    std::string out;
    for (size_t i = 0; i < std::min(names.size(), kShown); ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > kShown) out += fmt::format(" and {} more", names.size() - kShown);
    return out;
  };
  std::vector<std::string> parts;
  if (!better.empty()) parts.push_back("better on " + list(better));
  if (!worse.empty()) parts.push_back("worse on " + list(worse));
  if (within > 0)
    parts.push_back(fmt::format("within noise on {}{}", within,
                                better.empty() && worse.empty() ? ""
                                : within == 1                   ? " other"
                                                                : " others"));
  if (!changed_names.empty())
    parts.push_back(fmt::format("changed on {}{}", list(changed_names),
                                d.noise_known() ? " (no better direction)" : " (noise unknown)"));
  if (unchanged > 0) parts.push_back(fmt::format("unchanged on {}", unchanged));
  std::string out = fmt::format("B against A ({}): ", test_text(d));
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  if (parts.empty()) out += "nothing to compare";
  return out;
}

std::string diff_table(const ResultsDiff& d, bool wide) {
  std::string out = fmt::format("A: {}\nB: {}\n", folder_text(d.a), folder_text(d.b));
  if (!d.noise_known())
    out += "one seed on each side: noise unknown (a compare with seeds: gives it)\n";
  else
    out += fmt::format("noise: {} test at 95%\n",
                       d.test == NoiseTest::kPaired ? "paired (same seeds)" : "Welch's unpaired");
  for (const std::string& p : d.only_in_a) out += fmt::format("only in A: {}\n", p);
  for (const std::string& p : d.only_in_b) out += fmt::format("only in B: {}\n", p);
  const ReportTable t = table_of(d, wide);
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
      out += c < 2 || c + 1 == cells.size() ? fmt::format("{:<{}}", cell, w[c])
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
  out += "\n" + verdict_line(d) + "\n";
  return out;
}

ojson diff_json(const ResultsDiff& d) {
  ojson j;
  j["format"] = "slicelab.diff/2";
  const auto side = [](const DiffFolder& f) {
    return ojson{{"folder", f.dir}, {"runs", f.runs}, {"seeds", f.seeds}};
  };
  j["a"] = side(d.a);
  j["b"] = side(d.b);
  j["pairing"] = d.by_name ? "by_name" : "named";
  j["test"] = noise_test_name(d.test);
  j["noise"] = test_sentence(d);
  j["warnings"] = d.warnings;
  j["verdict"] = verdict_line(d);
  j["only_in_a"] = d.only_in_a;
  j["only_in_b"] = d.only_in_b;
  ojson pairs = ojson::array();
  for (const DiffRow& r : d.rows) {
    if (pairs.empty() || pairs.back()["a_policy"] != r.a_policy ||
        pairs.back()["b_policy"] != r.b_policy)
      pairs.push_back(
          {{"a_policy", r.a_policy}, {"b_policy", r.b_policy}, {"metrics", ojson::array()}});
    // Whole figures (pods, counts) as integers, as summary.json writes them.
    const auto number = [&](std::optional<double> v) {
      if (v && is_whole(r.metric->unit) && std::abs(*v) < 9e15 && *v == std::round(*v))
        return ojson(static_cast<int64_t>(std::llround(*v)));
      return json_value(v);
    };
    const auto better = better_direction(*r.metric);
    pairs.back()["metrics"].push_back(
        {{"key", metric_key(*r.metric)},
         {"unit", unit_name(r.metric->unit)},
         {"better", better ? ojson(better_name(*better)) : ojson(nullptr)},
         {"a", number(r.a)},
         {"b", number(r.b)},
         {"change", number(r.change())},
         {"change_percent", json_value(r.change_percent())},
         {"noise", json_value(r.noise)},
         {"beyond_noise", r.beyond_noise ? ojson(*r.beyond_noise) : ojson(nullptr)},
         {"verdict", verdict_name(r.verdict)}});
  }
  j["pairs"] = std::move(pairs);
  return j;
}

Report diff_report(const ResultsDiff& d) {
  Report r;
  r.title = "slicelab diff";
  r.intro.push_back(fmt::format("A (before): {}.", folder_text(d.a)));
  r.intro.push_back(fmt::format("B (after): {}.", folder_text(d.b)));
  r.intro.push_back(test_sentence(d));
  for (const std::string& w : d.warnings) r.intro.push_back("Warning: " + w + ".");
  for (const std::string& p : d.only_in_a) r.intro.push_back("Only in A: " + p + ".");
  for (const std::string& p : d.only_in_b) r.intro.push_back("Only in B: " + p + ".");
  r.intro.push_back("Verdict: " + verdict_line(d) + ".");
  ReportSection& changes = section(r, "Changes");
  ReportTable t = table_of(d, false);
  t.title = "Figures that changed";
  t.note = d.noise_known() ? "change = B - A; change % = change / |A|; noise 95% = the half "
                             "width of the change's 95% interval."
                           : "change = B - A; change % = change / |A|.";
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
            {fmt::format("{} · {}", row.metric->column.head, row.pair()), row.pair(), *p});
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
  all.note = "Every metric of summary.json both sides hold, per pair of policies.";
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
