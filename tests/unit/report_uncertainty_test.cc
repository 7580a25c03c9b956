// Reports of multi-seed folders: summary.json's "uncertainty" block read back, cells written as
// "mean ± half width", error bars in the headline charts (seed range for maxima), and the
// charts carrying the tables' caveats (lost pods marked, no bar where a policy has no value).
#include <gtest/gtest.h>

#include <string>

#include "reports/metric_cells.h"
#include "reports/report_content.h"
#include "reports/report_data.h"
#include "reports/report_format.h"
#include "reports/report_uncertainty.h"
#include "reports/vega_specs.h"
#include "sim/metrics/run_metrics.h"
#include "tests/support/report_fixtures.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

const ReportChart* chart_named(const Report& r, const std::string& prefix) {
  for (const auto& s : r.sections)
    for (const auto& c : s.charts)
      if (c.title.rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

const ReportTable* table_named(const Report& r, const std::string& title) {
  for (const auto& s : r.sections)
    for (const auto& t : s.tables)
      if (t.title == title) return &t;
  return nullptr;
}

const json* data_named(const json& spec, const std::string& name) {
  for (const json& d : spec["data"])
    if (d["name"] == name) return &d;
  return nullptr;
}

size_t marks_named(const json& spec, const std::string& name) {
  size_t n = 0;
  for (const json& m : spec["marks"]) n += m.value("name", "") == name ? 1 : 0;
  return n;
}

// A policy object as a multi-seed summary.json holds it.
ojson policy_with(const std::string& name, double queue_p99, double failed, ojson uncertainty) {
  ojson p = {{"name", name},
             {"sharing", "whole-card"},
             {"pods", {{"total", 600}, {"completed", 600 - failed}, {"failed", failed}}},
             {"queue_delay_s", {{"p99", queue_p99}, {"max", 2 * queue_p99}}},
             {"slo", {{"attainment", 0.9}}}};
  if (!uncertainty.is_null()) p["uncertainty"] = std::move(uncertainty);
  return p;
}

TEST(FigureSpread, ReadsTheEntryOfAKey) {
  const ojson p = {
      {"uncertainty",
       {{"pods.completed", {{"n", 10}, {"ci95", {598.2, 601.0}}, {"min", 597}, {"max", 600}}},
        {"jct_s.p99", {{"n", 1}, {"ci95", nullptr}, {"min", 50}, {"max", 50}}}}}};
  const auto s = figure_spread(p, "pods.completed");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 10u);
  EXPECT_DOUBLE_EQ(*s->ci_low, 598.2);
  EXPECT_DOUBLE_EQ(*s->ci_high, 601.0);
  EXPECT_DOUBLE_EQ(*s->min, 597);
  EXPECT_DOUBLE_EQ(*s->max, 600);
  // One seed holds a value: no interval, the range is that seed's.
  const auto one = figure_spread(p, "jct_s.p99");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->n, 1u);
  EXPECT_FALSE(one->ci_low);
  EXPECT_FALSE(error_bar(p, "jct_s.p99"));
  // No entry, no block.
  EXPECT_FALSE(figure_spread(p, "pods.failed"));
  EXPECT_FALSE(figure_spread(ojson{{"name", "a"}}, "pods.completed"));
}

TEST(FigureSpread, MaximaSpanTheSeedRangeOthersTheInterval) {
  const ojson p = {
      {"uncertainty",
       {{"queue_delay_s.p99", {{"n", 3}, {"ci95", {100, 300}}, {"min", 50}, {"max", 400}}},
        {"queue_delay_s.max", {{"n", 3}, {"ci95", {500, 700}}, {"min", 450}, {"max", 900}}}}}};
  const auto p99 = error_bar(p, "queue_delay_s.p99");
  ASSERT_TRUE(p99);
  EXPECT_FALSE(p99->seed_range);
  EXPECT_DOUBLE_EQ(p99->low, 100);
  EXPECT_DOUBLE_EQ(p99->high, 300);
  const auto max = error_bar(p, "queue_delay_s.max");
  ASSERT_TRUE(max);
  EXPECT_TRUE(max->seed_range);
  EXPECT_DOUBLE_EQ(max->low, 450);
  EXPECT_DOUBLE_EQ(max->high, 900);
}

TEST(CellWithSpread, MeanPlusMinusHalfTheIntervalInTheRowsFormat) {
  // 4.5 h mean, interval 3.3 h .. 5.7 h: half width 1.2 h.
  const ojson p = {
      {"uncertainty",
       {{"queue_delay_s.p99",
         {{"n", 10}, {"ci95", {3.3 * 3600, 5.7 * 3600}}, {"min", 0}, {"max", 1}}},
        {"queue_delay_s.max", {{"n", 10}, {"ci95", {1, 2}}, {"min", 3 * 3600}, {"max", 9 * 3600}}},
        {"pods.completed", {{"n", 10}, {"ci95", {598.2, 601.0}}, {"min", 597}, {"max", 600}}},
        {"allocation_ratio.time_weighted", {{"n", 10}, {"ci95", {0.59, 0.65}}}},
        {"pods.failed", {{"n", 1}, {"ci95", nullptr}, {"min", 2}, {"max", 2}}}}}};
  const RunMetric* p99 = find_run_metric("queue_delay_s.p99");
  const RunMetric* completed = find_run_metric("pods.completed");
  const RunMetric* alloc = find_run_metric("allocation_ratio.time_weighted");
  ASSERT_TRUE(p99 && completed && alloc);
  EXPECT_EQ(cell_with_spread(*p99, "4.5h", p), "4.5h ± 1.2h");
  EXPECT_EQ(cell_with_spread(*completed, "600", p), "600 ± 1.4");  // (601.0 - 598.2) / 2
  EXPECT_EQ(cell_with_spread(*alloc, "62.0%", p), "62.0% ± 3.0%");
  // A maximum: the mean and the seed range, 3 h to 9 h.
  EXPECT_EQ(cell_with_spread("queue_delay_s.max", "6.0h", p, duration), "6.0h (3.0h-9.0h)");
  // No interval (one seed), no entry, no figure: the cell as it was.
  EXPECT_EQ(cell_with_spread("pods.failed", "2", p, count), "2");
  EXPECT_EQ(cell_with_spread("jct_s.p99", "1.0h", p, duration), "1.0h");
  EXPECT_EQ(cell_with_spread(*p99, "-", p), "-");
  EXPECT_EQ(spread_count(25.4), "25");
  EXPECT_EQ(spread_count(0.4), "0.4");
}

class ReportUncertainty : public testing::TempFilesTest {
 protected:
  // A multi-seed summary.json of three policies: a (intervals), b (lost pods, intervals) and
  // c (no p99 queueing delay: none of its pods started).
  void write_seeds_summary(bool with_uncertainty) {
    const auto block = [&](double lo, double hi) -> ojson {
      if (!with_uncertainty) return nullptr;
      return {
          {"queue_delay_s.p99", {{"n", 3}, {"ci95", {lo, hi}}, {"min", lo - 10}, {"max", hi + 10}}},
          {"queue_delay_s.max",
           {{"n", 3}, {"ci95", {2 * lo, 2 * hi}}, {"min", lo}, {"max", 4 * hi}}},
          {"slo.attainment", {{"n", 3}, {"ci95", {0.85, 0.95}}, {"min", 0.8}, {"max", 1}}}};
    };
    ojson c = policy_with("c", 0, 0, nullptr);
    c["queue_delay_s"].erase("p99");
    ojson s = {
        {"format", "slicelab.seeds/1"},
        {"scenario", "seeds"},
        {"seeds", {1, 2, 3}},
        {"policies",
         {policy_with("a", 200, 0, block(150, 250)), policy_with("b", 100, 4, block(80, 120)), c}}};
    if (with_uncertainty)
      s["uncertainty"] = "ci95: the 95% confidence interval of the mean over the seeds.";
    testing::write_text(dir_ / "summary.json", s.dump(2));
  }
};

TEST_F(ReportUncertainty, BarsDrawTheIntervalOfEachPolicy) {
  write_seeds_summary(true);
  const Report r = build_report(load_report_data(dir_));
  const ReportChart* queue = chart_named(r, "p99 queueing delay");
  ASSERT_NE(queue, nullptr);
  const json* intervals = data_named(queue->spec, "intervals");
  ASSERT_NE(intervals, nullptr);
  // Seconds shown in minutes (the largest p99 is 200 s): a's interval 150..250 s.
  ASSERT_EQ((*intervals)["values"].size(), 2u);
  EXPECT_EQ((*intervals)["values"][0]["label"], "a");
  EXPECT_DOUBLE_EQ((*intervals)["values"][0]["low"].get<double>(), 2.5);
  EXPECT_NEAR((*intervals)["values"][0]["high"].get<double>(), 250.0 / 60, 1e-5);
  EXPECT_EQ(marks_named(queue->spec, "error-bars"), 1u);
  // The axis reaches past the highest interval end, so no bar is clipped.
  EXPECT_GE(queue->spec["scales"][1]["domain"][1].get<double>(), 250.0 / 60 - 1e-9);
  EXPECT_NE(queue->note.find("95% confidence interval of the mean over 3 seeds"), std::string::npos)
      << queue->note;
  // The intro carries summary.json's own sentence.
  bool said = false;
  for (const auto& line : r.intro) said = said || line.rfind("ci95:", 0) == 0;
  EXPECT_TRUE(said);
}

TEST_F(ReportUncertainty, LostPodsAreMarkedAndAMissingValueDrawsNoBar) {
  write_seeds_summary(true);
  const Report r = build_report(load_report_data(dir_));
  const ReportChart* queue = chart_named(r, "p99 queueing delay");
  ASSERT_NE(queue, nullptr);
  const json& rows = (*data_named(queue->spec, "table"))["values"];
  ASSERT_EQ(rows.size(), 2u);  // c has no value: no bar at all, not a zero
  EXPECT_EQ(rows[0]["label"], "a");
  EXPECT_EQ(rows[1]["label"], "b *");  // b lost 4 pods
  EXPECT_EQ(rows[1]["color"], "b");
  EXPECT_NE(queue->note.find(std::string("* ") + kOfPodsThatRan), std::string::npos) << queue->note;
  EXPECT_NE(queue->note.find("No bar for c"), std::string::npos) << queue->note;
  // SLO: what the share is of, and b marked.
  const ReportChart* slo = chart_named(r, "SLO attainment");
  ASSERT_NE(slo, nullptr);
  EXPECT_NE(slo->note.find("decided (met + missed)"), std::string::npos) << slo->note;
  EXPECT_NE(slo->note.find("still within their limit at the end are left out"), std::string::npos);
  EXPECT_EQ((*data_named(slo->spec, "table"))["values"][1]["label"], "b *");
}

TEST_F(ReportUncertainty, TablesCarryMeanPlusMinusHalfWidth) {
  write_seeds_summary(true);
  const Report r = build_report(load_report_data(dir_));
  const ReportTable* dist = table_named(r, "Queueing delay, JCT and slowdown");
  ASSERT_NE(dist, nullptr);
  // queue p99 of a: 200 s = 3.3m, interval 150..250 s: ± 50 s.
  EXPECT_EQ(dist->rows[0][4], "3.3m ± 50s");
  // queue max of a: 400 s = 6.7m, seed range 150 s .. 1000 s.
  EXPECT_EQ(dist->rows[0][5], "6.7m (2.5m-16.7m)");
  EXPECT_NE(dist->note.find("Over 3 seeds"), std::string::npos);
  const ReportTable* summary = table_named(r, "Policies compared");
  ASSERT_NE(summary, nullptr);
  bool plus_minus = false;
  for (const auto& cell : summary->rows[0])
    plus_minus = plus_minus || cell.find(" ± ") != std::string::npos;
  EXPECT_TRUE(plus_minus);
}

TEST_F(ReportUncertainty, WithoutABlockTheCaptionSaysSo) {
  write_seeds_summary(false);
  const Report multi = build_report(load_report_data(dir_));
  const ReportChart* queue = chart_named(multi, "p99 queueing delay");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(data_named(queue->spec, "intervals"), nullptr);
  EXPECT_EQ(marks_named(queue->spec, "error-bars"), 0u);
  EXPECT_NE(queue->note.find("Means over 3 seeds; this summary.json carries no intervals"),
            std::string::npos);
  const ReportTable* dist = table_named(multi, "Queueing delay, JCT and slowdown");
  ASSERT_NE(dist, nullptr);
  EXPECT_EQ(dist->rows[0][4], "3.3m");

  // A single-seed summary (no "seeds"): one seed, no interval.
  ojson s = {{"scenario", "one"}, {"seed", 1}, {"policies", {policy_with("a", 200, 0, nullptr)}}};
  testing::write_text(dir_ / "summary.json", s.dump());
  const Report one = build_report(load_report_data(dir_));
  ASSERT_NE(chart_named(one, "p99 queueing delay"), nullptr);
  EXPECT_EQ(chart_named(one, "p99 queueing delay")->note, "One seed: no interval.");
}

TEST(BarChartSpec, ErrorBarsOnlyWhereRowsHaveThem) {
  std::vector<BarRow> rows = {{"a", "a", 2, 1.5, 3}, {"b", "b", 1, {}, {}}};
  const json spec = bar_chart_spec(rows, BarOptions{});
  const json* intervals = data_named(spec, "intervals");
  ASSERT_NE(intervals, nullptr);
  ASSERT_EQ((*intervals)["values"].size(), 1u);
  EXPECT_EQ(marks_named(spec, "error-bars"), 1u);
  EXPECT_EQ(spec["scales"][1]["domain"][1], 3.0);  // the axis reaches the interval's end
  // The value label sits past the interval: a at 3, b at its bar end.
  const json& values = (*data_named(spec, "table"))["values"];
  EXPECT_EQ(values[0]["text_at"], 3.0);
  EXPECT_EQ(values[1]["text_at"], 1.0);
  // An interval below zero is drawn from zero (bars start there).
  rows = {{"a", "a", 1, -0.5, 2.5}};
  EXPECT_EQ((*data_named(bar_chart_spec(rows, BarOptions{}), "intervals"))["values"][0]["low"],
            0.0);
  // Without intervals the spec is as before: no extra data, mark or field.
  rows = {{"a", "a", 2, {}, {}}};
  const json plain = bar_chart_spec(rows, BarOptions{});
  EXPECT_EQ(plain["data"].size(), 1u);
  EXPECT_FALSE((*data_named(plain, "table"))["values"][0].contains("text_at"));
}

}  // namespace
}  // namespace slicelab
