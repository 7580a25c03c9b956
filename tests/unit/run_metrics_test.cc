// The run-metrics table (sim/metrics/run_metrics.h): its rows are well formed, the seed means
// follow each averaging kind, and every row reaches summary.json, the seed means, the terminal
// table, the report, the planner's targets and docs/results-format.md.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "planning/plan_metrics.h"
#include "reports/output_values.h"
#include "reports/report_content.h"
#include "reports/results_writer.h"
#include "sim/metrics/run_metrics.h"
#include "sim/metrics/seed_mean.h"

namespace slicelab {
namespace {

std::string top_key(std::string_view json) {
  return std::string(json.substr(0, json.find('.')));
}

// The value at a dotted key of a JSON object; nullptr when absent.
const nlohmann::ordered_json* json_at(const nlohmann::ordered_json& j, std::string_view dotted) {
  const nlohmann::ordered_json* at = &j;
  while (true) {
    const size_t dot = dotted.find('.');
    const auto it = at->find(std::string(dotted.substr(0, dot)));
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    dotted.remove_prefix(dot + 1);
  }
}

// A summary where every row has a value of its own, set through the rows' setters: whole
// units get even numbers (so that a mean of two equal seeds is exact for every kind), the
// others a distinct fraction. Optional groups (MIG, fill, topology, isolation) are present.
RunSummary summary_with_every_row() {
  RunSummary s;
  size_t i = 0;
  for (const RunMetric& m : run_metrics()) {
    ++i;
    if (m.access.set)
      m.access.set(s,
                   is_whole(m.unit) ? 2.0 * static_cast<double>(i) : 0.01 * static_cast<double>(i));
  }
  s.not_placed_reasons["no node could ever hold it"] = 2;
  s.per_model.push_back({"A100", 4, 0.5, 0.25, 0.75, 10, 7.5, 30});
  ClassSummary c;
  c.workload_class = "inference";
  c.pods = 2;
  s.per_class.push_back(c);
  QueueSummary q;
  q.name = "team-a";
  q.jobs = 3;
  s.queues.push_back(q);
  ServiceSummary v;
  v.name = "chat";
  v.requests = 100;
  s.services.push_back(v);
  return s;
}

TEST(RunMetricsTable, EveryRowIsWellFormed) {
  std::set<std::string_view> keys, targets, heads;
  std::set<int> positions, orders;
  for (const RunMetric& m : run_metrics()) {
    const std::string what = m.json.empty() ? std::string(m.column.head) : std::string(m.json);
    SCOPED_TRACE(what);
    if (!m.sum_of[0].empty()) {
      // A derived figure: the sum of two written rows.
      EXPECT_TRUE(!m.column.head.empty() || !m.json.empty());
      for (const std::string_view part : m.sum_of) {
        const RunMetric* p = find_run_metric(part);
        ASSERT_NE(p, nullptr) << part;
        EXPECT_EQ(p->unit, m.unit);
      }
      EXPECT_EQ(m.access.get, nullptr);
    }
    if (!m.json.empty()) {
      EXPECT_TRUE(keys.insert(m.json).second) << "duplicate key";
      EXPECT_EQ(find_run_metric(m.json), &m);
    }
    if (m.block == MetricBlock::kNumber && m.sum_of[0].empty()) {
      EXPECT_NE(m.unit, MetricUnit::kNone);
      EXPECT_NE(m.access.get, nullptr);
      // Only a row computed from others has no setter (its seed mean comes from theirs).
      EXPECT_EQ(m.access.set == nullptr, m.mean == SeedMean::kOfTheMeans);
    }
    if (m.block != MetricBlock::kNumber) {
      EXPECT_EQ(m.access.get, nullptr);
    }
    EXPECT_NE(unit_name(m.unit), "?");
    if (!m.target.name.empty()) {
      EXPECT_TRUE(targets.insert(m.target.name).second) << "duplicate target";
      EXPECT_TRUE(orders.insert(m.target.order).second) << "duplicate target order";
    }
    if (!m.column.head.empty()) {
      EXPECT_TRUE(heads.insert(m.column.head).second) << "duplicate column";
      EXPECT_TRUE(positions.insert(m.column.position).second) << "duplicate column position";
      EXPECT_TRUE(m.column.report || m.column.keep != kNeverInTerminal) << "a column nowhere";
    }
    if (m.column.format == CellFormat::kPointsMeanMax) {
      const RunMetric* max = find_run_metric(top_key(m.json) + ".max");
      EXPECT_NE(max, nullptr);
    }
  }
  // Target orders are 1..n: the order of sweep.csv's metric columns.
  ASSERT_FALSE(orders.empty());
  EXPECT_EQ(*orders.begin(), 1);
  EXPECT_EQ(*orders.rbegin(), static_cast<int>(orders.size()));
  // Rows of one top-level key come together (summary.json's key order) and agree on whether
  // they are written and how the report uses them.
  std::set<std::string> closed;
  std::string open;
  const RunMetric* first = nullptr;
  for (const RunMetric& m : run_metrics()) {
    if (m.json.empty()) continue;
    const std::string k = top_key(m.json);
    if (k != open) {
      EXPECT_TRUE(closed.insert(open).second || open.empty()) << open;
      EXPECT_FALSE(closed.count(k)) << k << " is split";
      open = k;
      first = &m;
    }
    EXPECT_EQ(m.written_if, first->written_if) << m.json;
    EXPECT_EQ(m.report, first->report) << m.json;
  }
}

// Two seeds by hand, one figure per averaging kind.
TEST(RunMetricsTable, SeedMeanFollowsEachKind) {
  RunSummary a, b;
  a.allocation_ratio = 0.2, b.allocation_ratio = 0.5;     // kMean: 0.35
  a.mode_results.figures = {{"mig.reconfigurations", 3},  // only seed a has MIG figures
                            {"mig.reconfiguration_gpu_s", 10},
                            {"mig.stranded_ratio", 0.4}};
  a.completed = 3, b.completed = 4;        // kRoundedMean: 3.5 -> 4
  a.events = 3, b.events = 5;              // kRoundedEach: 2 + 3 (not 4)
  a.slo_attainment = 0.9;                  // kMeanOfHolders: only a holds one
  a.queue_delay_s = {2, 5, 4, 6, 10, 12};  // both hold: p99 (10+30)/2
  b.queue_delay_s = {6, 15, 14, 26, 30, 40};
  a.fill = FillSummary{4, 1.0}, b.fill = FillSummary{6, 0.5};  // kLast: capacity 6
  a.window_end_s = 100, b.window_end_s = 200;                  // kNotAveraged
  a.slo_pods = 5, a.first_failure_s = 7.0;
  a.not_placed_reasons["x"] = 1, b.not_placed_reasons["x"] = 2;  // per reason: 1.5 -> 2
  const RunSummary* seeds[] = {&a, &b};
  const RunSummary m = seed_mean(seeds);

  EXPECT_DOUBLE_EQ(m.allocation_ratio, 0.35);
  const ModeResults& mig = m.mode_results;
  ASSERT_TRUE(mig.figure("mig.stranded_ratio").has_value());
  EXPECT_DOUBLE_EQ(*mig.figure("mig.stranded_ratio"), 0.2);  // kMean: a seed without it counts 0
  EXPECT_DOUBLE_EQ(*mig.figure("mig.reconfiguration_gpu_s"), 5);
  EXPECT_DOUBLE_EQ(*mig.figure("mig.reconfigurations"), 2);  // kRoundedMean: 1.5 -> 2
  EXPECT_EQ(m.completed, 4U);
  EXPECT_EQ(m.events, 5U);
  ASSERT_TRUE(m.slo_attainment.has_value());
  EXPECT_DOUBLE_EQ(*m.slo_attainment, 0.9);
  EXPECT_EQ(m.queue_delay_s.count, 4U);  // (2 + 6) / 2
  EXPECT_DOUBLE_EQ(m.queue_delay_s.p99, 20);
  EXPECT_DOUBLE_EQ(m.queue_delay_s.mean, 10);
  EXPECT_EQ(m.jct_s.count, 0U);  // no seed holds JCTs: none
  ASSERT_TRUE(m.fill.has_value());
  EXPECT_DOUBLE_EQ(m.fill->capacity_gpus, 6);
  EXPECT_DOUBLE_EQ(m.fill->arrived_at_end, 0.75);
  EXPECT_DOUBLE_EQ(m.window_end_s, 0);
  EXPECT_EQ(m.slo_pods, 0U);
  EXPECT_FALSE(m.first_failure_s.has_value());
  EXPECT_EQ(m.not_placed_reasons.at("x"), 2U);
  EXPECT_EQ(m.communication_quality.count, 0U);
  EXPECT_TRUE(seed_mean({}).not_placed_reasons.empty());
}

TEST(RunMetricsTable, EveryRowReachesEveryOutput) {
  const RunSummary s = summary_with_every_row();
  RunResult r;
  r.policy = "p";
  r.sharing = "mig (dynamic)";
  r.summary = s;
  const Scenario sc;
  const nlohmann::ordered_json j = summary_json(sc, {&r, 1});
  const nlohmann::ordered_json& p = j["policies"][0];

  const RunSummary* two[] = {&s, &s};
  const RunSummary mean = seed_mean(two);
  const RunSummary empty;

  // The terminal table (--wide, with MIG and isolation figures) and the report's table.
  const std::string table = comparison_table({&r, 1}, true);
  const std::string head = table.substr(0, table.find('\n'));
  ReportData data;
  data.summary = j;
  const Report report = build_report(data);
  std::set<std::string> report_heads, flattened;
  for (const ReportSection& sec : report.sections)
    for (const ReportTable& t : sec.tables) {
      if (t.title == "Policies compared") report_heads.insert(t.head.begin(), t.head.end());
      if (t.title == "More figures" || t.title == "Isolation figures")
        for (const auto& row : t.rows) flattened.insert(row.front());
    }
  ASSERT_FALSE(report_heads.empty());

  std::vector<std::string_view> targets(metric_names().begin(), metric_names().end());
  for (const RunMetric& m : run_metrics()) {
    SCOPED_TRACE(m.json.empty() ? m.column.head : m.json);
    if (!m.json.empty()) {
      const auto* v = json_at(p, m.json);
      ASSERT_NE(v, nullptr) << "not in summary.json";
      if (m.block == MetricBlock::kNumber) {
        const auto want = metric_value(m, s);
        ASSERT_TRUE(want.has_value());
        EXPECT_EQ(v->get<double>(), tidy_value(*want));
        EXPECT_EQ(v->is_number_unsigned(), is_whole(m.unit));
        // Two equal seeds: the mean is the seed's figure, or unset when not averaged.
        EXPECT_EQ(metric_value(m, mean),
                  m.mean == SeedMean::kNotAveraged && m.access.get ? metric_value(m, empty) : want);
      }
      const bool flat = flattened.count(std::string(m.json)) > 0;
      if (m.block == MetricBlock::kNumber) {
        EXPECT_EQ(flat, m.report == ReportUse::kFlattened) << "report's 'More figures'";
      }
    }
    if (!m.column.head.empty()) {
      const std::string h(m.column.head);
      EXPECT_EQ(head.find("  " + h) != std::string::npos, m.column.keep != kNeverInTerminal)
          << "terminal header: " << head;
      const std::string label(m.column.label.empty() ? m.column.head : m.column.label);
      EXPECT_EQ(report_heads.count(label) > 0, m.column.report) << "report header";
    }
    if (!m.target.name.empty()) {
      EXPECT_EQ(std::count(targets.begin(), targets.end(), m.target.name), 1);
      EXPECT_EQ(metric_value(s, m.target.name), metric_value(m, s));
    }
  }
  EXPECT_EQ(targets.size(), target_metrics().size());
}

TEST(RunMetricsTable, DerivedRowIsTheSumOfItsRows) {
  const RunMetric* unplaced = nullptr;
  for (const RunMetric& m : run_metrics())
    if (m.column.head == "unplaced") unplaced = &m;
  ASSERT_NE(unplaced, nullptr);
  RunSummary s;
  s.unschedulable = 3, s.pending_at_end = 4;
  EXPECT_EQ(metric_value(*unplaced, s), 7.0);
}

TEST(RunMetricsTable, ResultsFormatDocumentsEveryRow) {
  std::ifstream in(std::string(SLICELAB_SOURCE_DIR) + "/docs/results-format.md");
  ASSERT_TRUE(in) << "docs/results-format.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string expected = run_metrics_markdown();
  EXPECT_NE(text.str().find(expected), std::string::npos)
      << "docs/results-format.md's list of metrics is out of date; it should read:\n"
      << expected;
}

std::string doc_text(const std::string& page) {
  std::ifstream in(std::string(SLICELAB_SOURCE_DIR) + "/docs/" + page);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RunMetricsTable, PlanningAndSweepDocsNameEveryTarget) {
  const std::string planning = doc_text("planning.md");
  std::string header = "point,policy,cluster_scale,workload_scale,seed,nodes,gpus,pods";
  for (const std::string_view name : metric_names()) {
    EXPECT_NE(planning.find(fmt::format("`{}`", name)), std::string::npos) << name;
    header += fmt::format(",{}", name);
  }
  EXPECT_NE(doc_text("sweeps.md").find(header + "\n"), std::string::npos) << header;
}

}  // namespace
}  // namespace slicelab
