// The test-side PromQL tokenizer that the dashboard test relies on: it must find every series an
// expression selects and nothing else (functions, keywords, label lists, matchers, ranges,
// strings and Grafana variables are not series), and refuse what it cannot read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/promql_series_names.h"

namespace slicelab::testing {
namespace {

using Names = std::vector<std::string>;

TEST(PromqlSeriesNames, FindsSelectorsAndNothingElse) {
  EXPECT_EQ(promql_series_names(
                "histogram_quantile(0.99, sum by (verb, le) (rate(a_bucket{verb=~\"f|p\", "
                "job=~\"$job\"}[$__rate_interval])))"),
            Names{"a_bucket"});
  EXPECT_EQ(promql_series_names("sum(rate(a_sum[5m])) by (verb) / ignoring(side) b"),
            (Names{"a_sum", "b"}));
  EXPECT_EQ(promql_series_names("x{side=\"actual\"} - on(node) group_left(zone) y offset 1h"),
            (Names{"x", "y"}));
  EXPECT_EQ(promql_series_names("topk(5, m) > bool 0.5e-3 and n unless o or p"),
            (Names{"m", "n", "o", "p"}));
  EXPECT_EQ(promql_series_names("label_replace(m, \"dst\", \"$1 by (x)\", \"src\", \"(.*)\")"),
            Names{"m"});
  EXPECT_EQ(promql_series_names("{__name__=\"m\", job=\"j\"}"), Names{"m"});
  EXPECT_EQ(promql_series_names("max_over_time(m[1h:5m]) # a comment names c\n + ${var} + [[v]]"),
            Names{"m"});
  EXPECT_EQ(promql_series_names("SUM BY (le) (M)"), Names{"M"});
  EXPECT_EQ(promql_series_names("vector(1) + time()"), Names{});
}

TEST(PromqlSeriesNames, SelectorsCarryTheirMatchersLabels) {
  const auto sels = promql_selectors(
      "sum by (z) (a{x=\"1\", y=~\"$v\"}) + {__name__=\"b\", w!=\"\"} / c offset 5m");
  ASSERT_EQ(sels.size(), 3u);
  EXPECT_EQ(sels[0].name, "a");
  EXPECT_EQ(sels[0].labels, (Names{"x", "y"}));
  EXPECT_EQ(sels[1].name, "b");
  EXPECT_EQ(sels[1].labels, Names{"w"});
  EXPECT_EQ(sels[2].name, "c");
  EXPECT_TRUE(sels[2].labels.empty());
}

TEST(PromqlSeriesNames, RefusesWhatItCannotRead) {
  for (const char* bad :
       {"m{a=\"b\"", "rate(m[5m]", "m)", "m{a=\"b}", "rate(m[5m)", "m}", "sum by (le m"})
    EXPECT_THROW(promql_series_names(bad), PromqlTokenError) << bad;
}

TEST(PromqlSeriesNames, GrafanaVariableQueries) {
  EXPECT_EQ(grafana_variable_expression("label_values(m{job=~\"$job\"}, instance)"),
            "m{job=~\"$job\"}");
  EXPECT_EQ(grafana_variable_expression("label_values(job)"), "");
  EXPECT_EQ(grafana_variable_expression(" query_result(topk(3, m)) "), "topk(3, m)");
  EXPECT_EQ(grafana_variable_expression("metrics(slicelab_.*)"), "");
  EXPECT_EQ(grafana_variable_expression("up"), "up");
}

}  // namespace
}  // namespace slicelab::testing
