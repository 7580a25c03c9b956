// Charts that fit the data: log axes where values span over 100x, small multiples for many
// policies, sections only where the run has data, the figures that differ between policies
// brought into the summary, and the sweep report's "where each policy stops meeting the targets".
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "reports/differing_metrics.h"
#include "reports/report_content.h"
#include "reports/report_data.h"
#include "reports/sweep_report.h"
#include "reports/vega_specs.h"
#include "sim/metrics/run_metrics.h"
#include "tests/support/report_fixtures.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using nlohmann::json;

const ReportChart* chart_titled(const Report& r, const std::string& prefix) {
  for (const auto& s : r.sections)
    for (const auto& c : s.charts)
      if (c.title.rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

bool has_section(const Report& r, const std::string& title) {
  for (const auto& s : r.sections)
    if (s.title == title) return true;
  return false;
}

const ReportTable* table_titled(const Report& r, const std::string& title) {
  for (const auto& s : r.sections)
    for (const auto& t : s.tables)
      if (t.title == title) return &t;
  return nullptr;
}

// summary.json of policies named a, b, ... with the given p99 queueing delays and extra keys.
std::string summary_of(const std::vector<double>& queue_p99, const std::string& extra_a = "",
                       const std::string& extra_b = "") {
  std::string policies;
  for (size_t i = 0; i < queue_p99.size(); ++i) {
    const std::string extra = i == 0 ? extra_a : i == 1 ? extra_b : "";
    policies += (i ? ",\n" : "") + std::string("{\"name\": \"") + static_cast<char>('a' + i) +
                "\", \"sharing\": \"whole-card\", \"pods\": {\"total\": 2, \"completed\": 2}, "
                "\"queue_delay_s\": {\"p99\": " +
                std::to_string(queue_p99[i]) + "}" + extra + "}";
  }
  return "{\"scenario\": \"charts\", \"policies\": [" + policies + "]}";
}

class ReportCharts : public testing::TempFilesTest {};

TEST(AxisScale, LogOnlyWhereValuesSpanOverAHundredfold) {
  EXPECT_EQ(axis_scale_for(std::vector<double>{10, 900}).type, "linear");
  EXPECT_EQ(axis_scale_for(std::vector<double>{10, 1000}).type, "linear");  // exactly 100x
  const AxisScale log = axis_scale_for(std::vector<double>{10, 1001});
  EXPECT_EQ(log.type, "log");
  const AxisScale symlog = axis_scale_for(std::vector<double>{0, 12, 36000});
  EXPECT_EQ(symlog.type, "symlog");
  EXPECT_DOUBLE_EQ(symlog.constant, 12);  // linear below the smallest positive value
  EXPECT_EQ(axis_scale_for(std::vector<double>{0, 0}).type, "linear");
}

TEST_F(ReportCharts, QueueingBarsTurnLogarithmicWithDurationLabelsPastAHundredfold) {
  testing::write_text(dir_ / "summary.json", summary_of({12, 36000}));
  const Report r = build_report(load_report_data(dir_));
  const ReportChart* bars = chart_titled(r, "p99 queueing delay (log scale)");
  ASSERT_NE(bars, nullptr);
  const json& x = bars->spec["scales"][1];
  EXPECT_EQ(x["type"], "symlog");  // bars start at zero
  EXPECT_EQ(x["domain"], json::array({0, 36000}));
  const json& axis = bars->spec["axes"][0];
  ASSERT_TRUE(axis.contains("values"));
  // Duration ticks from 0 to past 10 h: 0, then 1 m, 5 m, 15 m, 1 h, 4 h (12 h > 10.5 h); 1 s
  // and 10 s lie below the symlog constant (12 s, the smallest value) and would overlap 0.
  EXPECT_EQ(x["constant"], 12);
  EXPECT_EQ(axis["values"], json::array({0, 60, 300, 900, 3600, 14400}));
  EXPECT_NE(axis.dump().find("/ 3600"), std::string::npos);  // labelled in hours

  // 30 s and 40 s: a linear axis in seconds, as before.
  testing::write_text(dir_ / "summary.json", summary_of({30, 40}));
  const Report linear = build_report(load_report_data(dir_));
  EXPECT_NE(chart_titled(linear, "p99 queueing delay (seconds)"), nullptr);
}

TEST_F(ReportCharts, IsolationSectionOnlyWhenSomePodIsCapped) {
  testing::write_text(dir_ / "summary.json", summary_of({1, 2}));
  // The column is there, but no pod has a cap: no section, no empty CDF.
  testing::write_text(dir_ / "pods.csv",
                      "policy,status,queue_delay_s,jct_s,isolation_error\n"
                      "a,completed,1,10,\nb,completed,2,20,\n");
  const Report none = build_report(load_report_data(dir_));
  EXPECT_FALSE(has_section(none, "Isolation"));
  EXPECT_EQ(chart_titled(none, "CDF of isolation error"), nullptr);
  for (const auto& s : none.sections)
    EXPECT_FALSE(s.paragraphs.empty() && s.tables.empty() && s.charts.empty()) << s.title;

  testing::write_text(dir_ / "pods.csv",
                      "policy,status,queue_delay_s,jct_s,isolation_error\n"
                      "a,completed,1,10,0.05\nb,completed,2,20,\n");
  const Report capped = build_report(load_report_data(dir_));
  EXPECT_TRUE(has_section(capped, "Isolation"));
  EXPECT_NE(chart_titled(capped, "CDF of isolation error"), nullptr);
}

TEST_F(ReportCharts, PerModelBarsOnlyWithMoreThanOneModel) {
  const auto model = [](const char* name, double sm) {
    return std::string(R"(, "per_model": [{"model": ")") + name +
           R"(", "gpus": 8, "sm_utilization": )" + std::to_string(sm) + "}]";
  };
  // One model throughout: the bars would repeat the headline SM utilization.
  testing::write_text(dir_ / "summary.json",
                      summary_of({1, 2}, model("A100", 0.4), model("A100", 0.2)));
  const Report one = build_report(load_report_data(dir_));
  EXPECT_EQ(chart_titled(one, "SM utilization per GPU model"), nullptr);
  EXPECT_NE(table_titled(one, "Utilization per GPU model"), nullptr);  // the table stays
  testing::write_text(dir_ / "summary.json",
                      summary_of({1, 2}, model("A100", 0.4), model("T4", 0.2)));
  const Report two = build_report(load_report_data(dir_));
  EXPECT_NE(chart_titled(two, "SM utilization per GPU model"), nullptr);
}

TEST_F(ReportCharts, MoreThanFourPoliciesGetOnePanelEach) {
  const auto write_series = [&](size_t policies) {
    std::vector<double> q(policies, 1.0);
    testing::write_text(dir_ / "summary.json", summary_of(q));
    std::string csv = "policy,time_s,allocation_ratio,fragmentation_ratio\n";
    for (size_t i = 0; i < policies; ++i)
      for (const char* t : {"0", "60"})
        csv += std::string(1, static_cast<char>('a' + i)) + "," + t + ",0.5,0.1\n";
    testing::write_text(dir_ / "timeseries.csv", csv);
    return build_report(load_report_data(dir_));
  };
  const Report four = write_series(4);
  const ReportChart* one = chart_titled(four, "GPU allocation ratio over time");
  ASSERT_NE(one, nullptr);
  EXPECT_FALSE(one->spec.contains("layout"));
  const Report five = write_series(5);
  const ReportChart* panels = chart_titled(five, "GPU allocation ratio over time");
  ASSERT_NE(panels, nullptr);
  ASSERT_TRUE(panels->spec.contains("layout"));
  const json& group = panels->spec["marks"][0];
  EXPECT_EQ(group["type"], "group");
  EXPECT_EQ(group["from"]["facet"]["groupby"], "series");
}

TEST_F(ReportCharts, AFigureThatDiffersBetweenPoliciesGetsASummaryColumn) {
  const std::string quality = R"(, "communication_quality": {"count": 4, "mean": )";
  testing::write_text(dir_ / "summary.json",
                      summary_of({1, 1}, quality + "0.8}", quality + "0.89}"));
  const Report r = build_report(load_report_data(dir_));
  const ReportTable* t = table_titled(r, "Policies compared");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->head.back(), "comm quality");
  EXPECT_EQ(t->rows[0].back(), "0.80");
  EXPECT_EQ(t->rows[1].back(), "0.89");

  // Equal for both: nothing to tell apart, no column.
  testing::write_text(dir_ / "summary.json",
                      summary_of({1, 1}, quality + "0.8}", quality + "0.8}"));
  const Report same = build_report(load_report_data(dir_));
  EXPECT_NE(table_titled(same, "Policies compared")->head.back(), "comm quality");
}

TEST(DifferingMetrics, TerminalGetsTheRowsWithoutAColumnOnly) {
  // Values that differ for every row: only rows the terminal table has no column for, one per
  // group (its mean), come back.
  const auto all_differ = [](size_t policy, const RunMetric&) {
    return std::optional<double>(1.0 + static_cast<double>(policy));
  };
  const auto rows = differing_metrics(2, all_differ, MetricTable::kTerminal);
  std::vector<std::string> names;
  for (const RunMetric* m : rows) names.emplace_back(m->json);
  EXPECT_NE(std::find(names.begin(), names.end(), "communication_quality.mean"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "communication_quality.p50"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "pods.failed"), names.end());  // a column
  // One policy: nothing can differ.
  EXPECT_TRUE(differing_metrics(1, all_differ, MetricTable::kTerminal).empty());
}

TEST_F(ReportCharts, SweepReportSaysWherePoliciesStopMeetingTheTargets) {
  testing::write_text(dir_ / "sweep.json", R"({"kind": "sweep", "name": "s", "scenario": "x.yaml",
    "grid": {"policies": ["p", "q"], "cluster_scales": [1, 2], "workload_scales": [1, 2],
             "seeds": [1, 2]}, "points": 16, "rows": 16})");
  // p: meets at cluster x2 for workload x1 only (mean over seeds of 200 s and 500 s is 350 s at
  // x1/x1, over the 300 s target); q: never (a failed pod everywhere).
  std::string csv =
      "point,policy,cluster_scale,workload_scale,seed,nodes,gpus,pods,queue_delay_p99_s,failed,"
      "unschedulable\n";
  int i = 0;
  for (const int seed : {1, 2})
    for (const double w : {1.0, 2.0})
      for (const double c : {1.0, 2.0})
        for (const char* p : {"p", "q"}) {
          double q99 = 1000;
          if (c == 2 && w == 1) q99 = 100;
          if (c == 1 && w == 1) q99 = seed == 1 ? 200 : 500;
          const int failed = std::string(p) == "q" ? 1 : 0;
          csv += std::to_string(i++) + "," + p + "," + std::to_string(c) + "," + std::to_string(w) +
                 "," + std::to_string(seed) + ",2,8,10," + std::to_string(q99) + "," +
                 std::to_string(failed) + ",0\n";
        }
  testing::write_text(dir_ / "sweep.csv", csv);
  ASSERT_TRUE(is_sweep_folder(dir_));
  const Report r = build_sweep_report(dir_);
  const ReportTable* t = table_titled(r, "Smallest cluster scale that meets the targets");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 2U);
  EXPECT_EQ(t->rows[0], (std::vector<std::string>{"x1", "x2", "none up to x2"}));
  EXPECT_EQ(t->rows[1], (std::vector<std::string>{"x2", "none up to x2", "none up to x2"}));
  std::string text;
  for (const auto& s : r.sections)
    for (const auto& p : s.paragraphs) text += p + "\n";
  EXPECT_NE(text.find("p stops meeting the targets at workload x2"), std::string::npos) << text;
  EXPECT_NE(text.find("q misses the targets at every workload scale"), std::string::npos);
  // Queueing and failures differ across the grid: a heatmap each, one panel per policy;
  // unschedulable is 0 everywhere: a sentence instead of a chart.
  const ReportChart* queue = chart_titled(r, "p99 queueing delay");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->spec["marks"][0]["from"]["facet"]["groupby"], "panel");
  EXPECT_EQ(chart_titled(r, "pods never placed"), nullptr);
  EXPECT_NE(text.find("pods never placed: 0 at every grid point"), std::string::npos);
}

}  // namespace
}  // namespace slicelab
