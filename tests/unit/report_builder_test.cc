// The report builder without a browser: CSV reading, downsampling, what is read from a results
// folder (optional files and columns, seed folders, plan.json), the tables and charts built from
// it, and the Markdown/HTML writers' escaping.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "reports/csv_table.h"
#include "reports/downsample.h"
#include "reports/ordered_json_parse.h"
#include "reports/report_content.h"
#include "reports/report_data.h"
#include "reports/report_html.h"
#include "reports/report_markdown.h"
#include "reports/vega_bundle.h"
#include "reports/vega_specs.h"
#include "tests/support/report_fixtures.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using testing::write_text;
using json = nlohmann::json;

const ReportSection* find_section(const Report& r, const std::string& title) {
  for (const auto& s : r.sections)
    if (s.title == title) return &s;
  return nullptr;
}

const ReportTable* find_table(const Report& r, const std::string& title) {
  for (const auto& s : r.sections)
    for (const auto& t : s.tables)
      if (t.title == title) return &t;
  return nullptr;
}

std::vector<std::string> chart_titles(const Report& r) {
  std::vector<std::string> out;
  for (const auto& s : r.sections)
    for (const auto& c : s.charts) out.push_back(c.title);
  return out;
}

const ReportChart* find_chart(const Report& r, const std::string& prefix) {
  for (const auto& s : r.sections)
    for (const auto& c : s.charts)
      if (c.title.rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

// The inline data set `name` of a Vega spec.
json data_of(const json& spec, const std::string& name) {
  for (const json& d : spec.at("data"))
    if (d.at("name") == name) return d.at("values");
  return json::array();
}

TEST(CsvTable, ReadsQuotedFieldsPadsShortRowsAndFindsColumns) {
  const CsvTable t = parse_csv("a,b,c\n\"x, \"\"y\"\"\",2\n\n3,,4\r\n", "test.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.rows.size(), 2U);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"x, \"y\"", "2", ""}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"3", "", "4"}));
  EXPECT_EQ(t.column("c"), 2U);
  EXPECT_FALSE(t.column("isolation_error").has_value());
}

TEST(CsvTable, RejectsAnUnterminatedQuoteNamingTheFile) {
  try {
    parse_csv("a\n\"open\n", "pods.csv");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("pods.csv"), std::string::npos) << e.what();
  }
}

TEST(CsvTable, NumbersAreOptional) {
  EXPECT_EQ(csv_number("1.5"), 1.5);
  EXPECT_EQ(csv_number("-2e3"), -2000.0);
  EXPECT_FALSE(csv_number("").has_value());
  EXPECT_FALSE(csv_number("abc").has_value());
  EXPECT_FALSE(csv_number("1.5x").has_value());
  EXPECT_FALSE(csv_number("nan").has_value());
}

TEST(Downsample, KeepsEverythingWhenShortAndEvenlySpacedEndsWhenLong) {
  EXPECT_EQ(downsample_indices(3, 10), (std::vector<size_t>{0, 1, 2}));
  const auto idx = downsample_indices(100001, 500);
  ASSERT_EQ(idx.size(), 500U);
  EXPECT_EQ(idx.front(), 0U);
  EXPECT_EQ(idx.back(), 100000U);
  for (size_t i = 1; i < idx.size(); ++i) {
    EXPECT_GT(idx[i], idx[i - 1]);
    EXPECT_LE(idx[i] - idx[i - 1], 202U);  // even spacing: about 100000/499 apart
  }
  EXPECT_EQ(downsample_indices(10, 0).size(), 2U);  // at least the ends
}

TEST(Downsample, SmallCdfIsExactWithTiesCollapsed) {
  const auto c = cdf_points({3, 1, 1, 2}, 10);
  ASSERT_EQ(c.size(), 3U);
  EXPECT_EQ(c[0].value, 1);
  EXPECT_DOUBLE_EQ(c[0].fraction, 0.5);
  EXPECT_EQ(c[1].value, 2);
  EXPECT_DOUBLE_EQ(c[1].fraction, 0.75);
  EXPECT_EQ(c[2].value, 3);
  EXPECT_DOUBLE_EQ(c[2].fraction, 1.0);
  EXPECT_TRUE(cdf_points({}, 10).empty());
}

TEST(Downsample, LargeCdfOfDistinctValuesKeepsExactlyMaxPoints) {
  std::vector<double> v;
  for (int i = 49999; i >= 0; --i) v.push_back(i);
  const auto c = cdf_points(v, 200);
  ASSERT_EQ(c.size(), 200U);
  EXPECT_EQ(c.front().value, 0);
  EXPECT_DOUBLE_EQ(c.front().fraction, 1 / 50000.0);
  EXPECT_EQ(c.back().value, 49999);
  EXPECT_DOUBLE_EQ(c.back().fraction, 1.0);
}

TEST(Downsample, LargeCdfIsBoundedMonotoneAndTrueAtEveryPoint) {
  std::vector<double> v;
  for (int i = 0; i < 50000; ++i) v.push_back(i < 30000 ? 0.0 : static_cast<double>(i % 977));
  const auto c = cdf_points(v, 200);
  ASSERT_LE(c.size(), 200U);
  // 60% zeros collapse into one point; the 80 picks among the rest stay.
  ASSERT_GE(c.size(), 80U);
  EXPECT_EQ(c.front().value, 0);
  EXPECT_EQ(c.back().value, 976);
  EXPECT_DOUBLE_EQ(c.back().fraction, 1.0);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < c.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(c[i].value, c[i - 1].value);
      EXPECT_GT(c[i].fraction, c[i - 1].fraction);
    }
    // Each point is the true share of values <= it.
    const auto le = std::upper_bound(sorted.begin(), sorted.end(), c[i].value) - sorted.begin();
    EXPECT_DOUBLE_EQ(c[i].fraction, static_cast<double>(le) / 50000.0) << i;
  }
}

TEST(ReasonKind, KeepsTheLeadingPhrase) {
  EXPECT_EQ(reason_kind("out of memory on a100-0 GPU 1: needs 20480 MiB, neighbours hold 61440"),
            "out of memory");
  EXPECT_EQ(reason_kind("no node could ever hold it: needs 9 GPUs"), "no node could ever hold it");
  EXPECT_EQ(reason_kind("out of memory (neighbour)"), "out of memory");
  EXPECT_EQ(reason_kind("not placed before the run ended"), "not placed before the run ended");
  EXPECT_EQ(reason_kind(""), "no reason given");
}

class ReportFolder : public testing::TempFilesTest {};

TEST_F(ReportFolder, ReadsEveryFileIncludingOptionalColumns) {
  testing::write_full_fixture(dir_);
  const ReportData d = load_report_data(dir_);
  ASSERT_TRUE(d.summary && d.plan);
  EXPECT_EQ(d.detail_from, "");
  EXPECT_TRUE(d.has_isolation_column);
  ASSERT_EQ(d.pods.size(), 2U);
  EXPECT_EQ(d.pods[0].policy, "alpha");
  EXPECT_EQ(d.pods[1].policy, "beta, ts");
  EXPECT_EQ(d.pods[0].queue_delay_s, (std::vector<double>{0, 0, 120, 0}));
  EXPECT_EQ(d.pods[0].jct_s, (std::vector<double>{600, 1000, 700}));
  EXPECT_EQ(d.pods[0].isolation_error, (std::vector<double>{0.02, 0.08, 0.5}));
  EXPECT_EQ(d.pods[0].not_run, (std::map<std::string, size_t>{{"failed: out of memory", 1}}));
  EXPECT_EQ(d.pods[1].not_run, (std::map<std::string, size_t>{{"unschedulable: no node fits", 1},
                                                              {"pending: no reason given", 1}}));
  ASSERT_EQ(d.timeseries.size(), 2U);
  EXPECT_EQ(d.timeseries[0].time_s, (std::vector<double>{0, 1800, 3600}));
  EXPECT_EQ(d.timeseries[1].allocation_ratio, (std::vector<double>{0.125, 0.25}));
  ASSERT_EQ(d.fill.size(), 1U);  // only alpha has fill rows
  EXPECT_EQ(d.fill[0].allocated_ratio, (std::vector<double>{0.25, 0.75, 0.875}));
}

TEST_F(ReportFolder, BuildsTablesAndChartsFromEverything) {
  testing::write_full_fixture(dir_);
  const Report r = build_report(load_report_data(dir_));
  EXPECT_EQ(r.title, "slicelab report: fixture");
  std::vector<std::string> sections;
  for (const auto& s : r.sections) sections.push_back(s.title);
  EXPECT_EQ(sections, (std::vector<std::string>{"Summary", "Capacity plan", "Sizes evaluated",
                                                "Headline metrics", "Queueing delay and JCT",
                                                "Over time", "Per GPU model", "Failures",
                                                "Isolation", "Fill experiment", "Other figures"}));

  const ReportTable* summary = find_table(r, "Policies compared");
  ASSERT_NE(summary, nullptr);
  ASSERT_EQ(summary->rows.size(), 2U);
  EXPECT_EQ(summary->rows[0][0], "alpha");
  EXPECT_EQ(summary->rows[0][5], "50.0%");  // alloc
  EXPECT_EQ(summary->rows[0][9], "2.0m*");  // queue p99 = 120 s, of the pods that did not fail
  EXPECT_EQ(summary->rows[1][1], "time-slice");
  EXPECT_EQ(summary->rows[1][4], "2");   // unplaced = unschedulable + pending
  EXPECT_EQ(summary->rows[1][12], "-");  // no SLO attainment

  const ReportTable* why = find_table(r, "Reasons");
  ASSERT_NE(why, nullptr);
  EXPECT_EQ(why->head, (std::vector<std::string>{"status: reason", "alpha", "beta, ts"}));
  EXPECT_EQ(why->rows.size(), 3U);

  const ReportTable* iso = find_table(r, "Isolation error per capped pod");
  ASSERT_NE(iso, nullptr);
  EXPECT_EQ(iso->rows[0][1], "3");
  EXPECT_EQ(iso->rows[0][6], "0.5");  // max
  const ReportTable* iso_keys = find_table(r, "Isolation figures");
  ASSERT_NE(iso_keys, nullptr);
  EXPECT_EQ(iso_keys->rows[0], (std::vector<std::string>{"isolation.mean_error", "0.05", "-"}));
  const ReportTable* more = find_table(r, "More figures");
  ASSERT_NE(more, nullptr);
  EXPECT_EQ(more->rows[0], (std::vector<std::string>{"future_metric.score", "2.5", "-"}));

  // Bars: allocation, SM, queue p99, JCT p99, SLO (alpha only), failures, cost; two CDFs, two
  // time series, two per-model bars, isolation CDF, two fill curves, a capacity chart per
  // target (two).
  EXPECT_EQ(r.chart_count(), 7U + 2 + 2 + 2 + 1 + 2 + 2)
      << ::testing::PrintToString(chart_titles(r));
  const ReportChart* slo = find_chart(r, "SLO attainment");
  ASSERT_NE(slo, nullptr);
  EXPECT_EQ(data_of(slo->spec, "table").size(), 1U);  // beta has none: left out, not zero
  const ReportChart* cost = find_chart(r, "Cost (USD)");
  ASSERT_NE(cost, nullptr);
  const ReportChart* queue = find_chart(r, "p99 queueing delay (minutes)");
  ASSERT_NE(queue, nullptr) << ::testing::PrintToString(chart_titles(r));
  EXPECT_EQ(data_of(queue->spec, "table")[0]["value"], 2.0);  // 120 s in minutes
  const ReportChart* failures = find_chart(r, "Pods that failed");
  ASSERT_NE(failures, nullptr);
  EXPECT_EQ(data_of(failures->spec, "table").size(), 4U);  // 2 policies x (failed, never placed)
}

TEST_F(ReportFolder, RendersThePlanFromAPlanOnlyFolder) {
  write_text(dir_ / "plan.json", testing::kFixturePlan);
  const Report r = build_report(load_report_data(dir_));
  EXPECT_EQ(r.title, "slicelab capacity plan: fixture");
  ASSERT_EQ(r.sections.size(), 2U);
  const ReportSection& plan = r.sections[0];
  EXPECT_EQ(plan.title, "Capacity plan");
  EXPECT_EQ(r.sections[1].title, "Sizes evaluated");
  ASSERT_EQ(plan.paragraphs.size(), 2U);
  EXPECT_NE(plan.paragraphs[0].find("queue_delay_p99_s <= 5.0m, failures <= 0"), std::string::npos)
      << plan.paragraphs[0];
  EXPECT_NE(plan.paragraphs[0].find("x1.5"), std::string::npos);
  EXPECT_NE(plan.paragraphs[0].find("node group 'a100'"), std::string::npos);
  // The infeasible policy with its reason.
  EXPECT_EQ(plan.paragraphs[1].rfind("beta, ts is infeasible: at 64 GPUs", 0), 0U)
      << plan.paragraphs[1];
  ASSERT_FALSE(r.intro.empty());
  EXPECT_EQ(r.intro[0].rfind("Recommendation: Use alpha with 48 GPUs", 0), 0U);

  const ReportTable* t = find_table(r, "Smallest cluster per policy");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->head, (std::vector<std::string>{"policy", "feasible", "GPUs", "nodes", "cost $/h",
                                               "queue_delay_p99_s", "failures", "fit"}));
  // Seconds as a duration (250 s = 4.2 minutes); the fit's coefficients stay in plan.json.
  EXPECT_EQ(t->rows[0], (std::vector<std::string>{"alpha", "yes", "48", "6", "123.40", "4.2m", "0",
                                                  "R2 0.97"}));
  EXPECT_EQ(t->rows[1][1], "no");
  EXPECT_EQ(t->rows[1][2], "-");
  const ReportTable* curve = find_table(r, "Capacity curve (every size evaluated)");
  ASSERT_NE(curve, nullptr);
  EXPECT_EQ(curve->rows.size(), 6U);
  EXPECT_EQ(curve->rows[2], (std::vector<std::string>{"alpha", "48", "6", "4.2m", "yes"}));

  // One chart per target, every policy in it, the target line and each crossing labelled.
  ASSERT_EQ(plan.charts.size(), 2U);
  const json& spec = plan.charts[0].spec;
  EXPECT_EQ(plan.charts[0].title,
            "queue_delay_p99_s against cluster size (target <= 5.0m); never met by beta, ts");
  const json points = data_of(spec, "points");
  ASSERT_EQ(points.size(), 6U);
  EXPECT_EQ(points[2], (json{{"series", "alpha"}, {"x", 48.0}, {"y", 250.0}, {"meets", true}}));
  EXPECT_EQ(data_of(spec, "dashed").size(), 4U);  // alpha's fit (R2 0.97); beta has none
  EXPECT_EQ(data_of(spec, "rule")[0]["y"], 300.0);
  // alpha meets 300 s from 48 GPUs on (410 s at 32 misses): the crossing is (48, 250).
  const json crossings = data_of(spec, "labels");
  ASSERT_EQ(crossings.size(), 1U);
  EXPECT_EQ(crossings[0]["series"], "alpha");
  EXPECT_EQ(crossings[0]["x"], 48.0);
  EXPECT_EQ(crossings[0]["y"], 250.0);
  EXPECT_EQ(crossings[0]["text"], "alpha: 48 GPUs");
  // 180 s .. 2000 s is within 100x: a linear axis, labelled as durations.
  EXPECT_EQ(spec["scales"][1]["type"], "linear");
  // The second target: failures reach 0 at 48 GPUs for alpha; its values span 1..5 plus zeros.
  const json failures = data_of(plan.charts[1].spec, "labels");
  ASSERT_EQ(failures.size(), 1U);
  EXPECT_EQ(failures[0]["x"], 48.0);
  EXPECT_EQ(failures[0]["y"], 0.0);
  EXPECT_EQ(data_of(plan.charts[1].spec, "dashed").size(), 0U);  // fits are of the first target
}

// The linear parser gives what nlohmann's gives: values, key order, last value of a repeated
// key, and the same exception on bad input.
TEST(OrderedJsonParse, MatchesNlohmannsParser) {
  using ojson = nlohmann::ordered_json;
  for (const char* text :
       {R"({"b": 1, "a": [1, 2.5, "x", null, true, {"z": {}, "y": []}], "c": {"k": -3}})",
        R"({"a": 1, "b": 2, "a": 3})", R"([])", R"("s")", R"(18446744073709551615)",
        R"({"x": [[[{"q": [false]}]]], "x": 0})"}) {
    EXPECT_EQ(parse_ordered_json(text).dump(), ojson::parse(text).dump()) << text;
  }
  for (const char* bad : {"{", R"({"a" 1})", "[1,]", "", "{} x"})
    EXPECT_THROW(parse_ordered_json(bad), ojson::parse_error) << bad;
  EXPECT_THROW(parse_ordered_json("1e999"), ojson::out_of_range);  // as ojson::parse("1e999")
  EXPECT_THROW(ojson::parse("1e999"), ojson::out_of_range);
}

// Report entries are gathered in linear time: 100,000 further keys in a summary (parsed and
// tabled), and a bar chart of 100,000 labels, were each compared with every earlier one. No timing
// is asserted; ctest's timeout is the guard.
TEST_F(ReportFolder, ManyEntriesAreGatheredInLinearTime) {
  std::string extra;
  for (int i = 0; i < 100'000; ++i)
    extra += ", \"k" + std::to_string(i) + "\": " + std::to_string(i);
  write_text(dir_ / "summary.json",
             R"({"scenario": "wide", "policies": [{"name": "p")" + extra + "}]}");
  const Report r = build_report(load_report_data(dir_));
  const ReportTable* more = find_table(r, "More figures");
  ASSERT_NE(more, nullptr);
  ASSERT_EQ(more->rows.size(), 100'000U);
  EXPECT_EQ(more->rows[99'999], (std::vector<std::string>{"k99999", "99999"}));

  std::vector<BarRow> rows;
  for (int i = 0; i < 100'000; ++i) rows.push_back({"l" + std::to_string(i), "c", 1.0 * i});
  rows.push_back({"l7", "d", 5.0});  // stacks onto l7: 7 + 5
  BarOptions o;
  o.stacked = true;
  const json spec = bar_chart_spec(rows, o);
  EXPECT_EQ(spec["height"], 100'000 * 24);
  ASSERT_EQ(spec["scales"][0]["domain"].size(), 100'000U);
  EXPECT_EQ(spec["scales"][0]["domain"][7], "l7");
  EXPECT_EQ(spec["scales"][1]["domain"][1], 99'999.0);
  rows = {{"a", "c", 3.0}, {"b", "c", 4.0}, {"a", "d", 2.0}};
  EXPECT_EQ(bar_chart_spec(rows, o)["scales"][1]["domain"][1], 5.0);  // a stacks to 5
  o.stacked = false;
  EXPECT_EQ(bar_chart_spec(rows, o)["scales"][1]["domain"][1], 4.0);
}

TEST_F(ReportFolder, DegradesGracefullyWithOnlyASummary) {
  // A summary from an older or smaller writer: no per-pod files, no SLO, no per-model figures.
  write_text(dir_ / "summary.json", R"({"scenario": "bare", "policies": [
    {"name": "p", "pods": {"completed": 2, "failed": 0},
     "allocation_ratio": {"time_weighted": 0.5}, "queue_delay_s": {"count": 0, "p99": null}}]})");
  const ReportData d = load_report_data(dir_);
  EXPECT_TRUE(d.pods.empty());
  EXPECT_TRUE(d.timeseries.empty());
  EXPECT_FALSE(d.has_isolation_column);
  const Report r = build_report(d);
  EXPECT_EQ(find_section(r, "Over time"), nullptr);
  EXPECT_EQ(find_section(r, "Isolation"), nullptr);
  EXPECT_EQ(find_section(r, "Fill experiment"), nullptr);
  EXPECT_EQ(find_section(r, "Per GPU model"), nullptr);
  EXPECT_EQ(find_chart(r, "CDF"), nullptr);
  EXPECT_EQ(find_chart(r, "SLO attainment"), nullptr);
  EXPECT_NE(find_chart(r, "GPU allocation ratio"), nullptr);
  const ReportTable* summary = find_table(r, "Policies compared");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->rows[0][9], "-");  // no queue p99
  // Both writers accept it.
  EXPECT_NE(report_markdown(r).find("| p |"), std::string::npos);
  EXPECT_NE(report_html(r, "var vega = {};")
                .find("data-charts-expected=\"" + std::to_string(r.chart_count()) + "\""),
            std::string::npos);
}

TEST_F(ReportFolder, ReadsPerPodFilesOfTheFirstSeed) {
  write_text(dir_ / "summary.json",
             R"({"format": "slicelab.seeds/1", "scenario": "s", "seeds": [9, 7], "policies": []})");
  write_text(dir_ / "seed-7" / "pods.csv", testing::kFixturePods);
  write_text(dir_ / "seed-9" / "pods.csv",
             "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,"
             "node,gpus,reason\nonly9,p,c,completed,0,0,1,0,1,1,0,0,\n");
  const ReportData d = load_report_data(dir_);
  EXPECT_EQ(d.detail_from, "seed-9");  // the summary's first seed
  ASSERT_EQ(d.pods.size(), 1U);
  EXPECT_EQ(d.pods[0].policy, "only9");
  const Report r = build_report(d);
  EXPECT_NE(r.intro[1].find("seed-9"), std::string::npos) << r.intro[1];
}

TEST_F(ReportFolder, RefusesAFolderWithoutResults) {
  try {
    load_report_data(dir_);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a results folder"), std::string::npos) << e.what();
  }
  write_text(dir_ / "summary.json", "{ nope");
  try {
    load_report_data(dir_);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    // Located, without nlohmann's "[json.exception.parse_error.101]" tag.
    EXPECT_EQ(std::string(e.what()),
              (dir_ / "summary.json").string() +
                  ":1:4: not valid JSON: syntax error while parsing object key - invalid literal; "
                  "last read: '{ no'; expected string literal");
  }
  EXPECT_THROW(load_report_data(dir_ / "missing"), std::runtime_error);
}

TEST_F(ReportFolder, LongSeriesAreThinnedForTheCharts) {
  std::string ts =
      "policy,time_s,allocation_ratio,fragmentation_ratio,sm_utilization,running,pending\n";
  std::string pods =
      "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,node,gpus,"
      "reason\n";
  for (int i = 0; i < 20000; ++i) {
    ts += "a," + std::to_string(i * 60) + ",0.5,0.1,0.4,1,0\n";
    ts += "b," + std::to_string(i * 60) + ",0.25,0.1,0.4,1,0\n";
    pods += "a,p" + std::to_string(i) + ",c,completed,0,0,1," + std::to_string(i) + ",1,1,0,0,\n";
  }
  write_text(dir_ / "summary.json",
             R"({"scenario": "big", "policies": [{"name": "a"}, {"name": "b"}]})");
  write_text(dir_ / "timeseries.csv", ts);
  write_text(dir_ / "pods.csv", pods);
  const Report r = build_report(load_report_data(dir_));
  const ReportChart* over_time = find_chart(r, "GPU allocation ratio over time");
  ASSERT_NE(over_time, nullptr);
  EXPECT_LE(data_of(over_time->spec, "table").size(), kMaxChartPoints);
  EXPECT_GE(data_of(over_time->spec, "table").size(), kMaxChartPoints - 2);
  const ReportChart* cdf = find_chart(r, "CDF of queueing delay");
  ASSERT_NE(cdf, nullptr);
  EXPECT_LE(data_of(cdf->spec, "table").size(), kMaxChartPoints);
  EXPECT_EQ(data_of(cdf->spec, "table").back()["y"], 1.0);
}

TEST(ReportWriters, EscapeMarkdownCellsAndHtmlAndScriptData) {
  ReportTable t;
  t.title = "x";
  t.head = {"policy", "value"};
  t.rows = {{"a|b", "12"}, {"c\nd", "-"}};
  const std::string md = markdown_table(t);
  EXPECT_EQ(md, "| policy | value |\n|---|---:|\n| a\\|b | 12 |\n| c d | - |\n");

  Report r;
  r.title = "t <b>";
  ReportSection s;
  s.title = "S";
  s.tables.push_back(t);
  s.charts.push_back({"evil", {{"data", {{{"name", "table"}, {"values", {"</script><b>x"}}}}}}});
  r.sections.push_back(s);
  const std::string html = report_html(r, "var vega = {};");
  EXPECT_NE(html.find("<title>t &lt;b&gt;</title>"), std::string::npos);
  EXPECT_EQ(html.find("</script><b>x"), std::string::npos);  // cannot end the data element
  EXPECT_NE(html.find("\\u003c/script>\\u003cb>x"), std::string::npos);
  EXPECT_NE(html.find("data-charts-expected=\"1\""), std::string::npos);
  EXPECT_NE(html.find("<div class=\"chart\" id=\"chart-1\""), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
}

TEST_F(ReportFolder, VegaBundleIsFoundOrNamesThePackage) {
  ::setenv("SLICELAB_VEGA_DIR", dir_.c_str(), 1);
  try {
    find_vega_dir();
    ::unsetenv("SLICELAB_VEGA_DIR");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("libjs-vega"), std::string::npos) << e.what();
  }
  ::unsetenv("SLICELAB_VEGA_DIR");
  std::filesystem::path real;
  try {
    real = find_vega_dir();
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "libjs-vega not installed: " << e.what();
  }
  // A module holding "</script>" must not end the inline element.
  for (const auto& f : std::filesystem::directory_iterator(real))
    if (f.path().extension() == ".js")
      std::filesystem::copy_file(f.path(), dir_ / f.path().filename());
  { std::ofstream(dir_ / "vega-util.min.js", std::ios::app) << "\nvar s = '</script>';\n"; }
  const std::string js = vega_bundle_js(dir_);
  EXPECT_EQ(js.find("</script"), std::string::npos);
  EXPECT_NE(js.find("'<\\/script>'"), std::string::npos);
  EXPECT_NE(js.find("mods['vega-view'] = module.exports"), std::string::npos);
}

}  // namespace
}  // namespace slicelab
