// The test-side parser of the Prometheus text format: it reads what the format allows, and it
// rejects each kind of broken input, so that tests relying on it can fail.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <ostream>
#include <string>

#include "tests/support/prometheus_text_parser.h"

namespace slicelab::testing {
namespace {

std::string parse_error_of(const std::string& text) {
  try {
    parse_prometheus_text(text);
  } catch (const PrometheusTextError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PrometheusTextParser, ReadsTheFormatsFeatures) {
  const std::string text =
      "# A plain comment, ignored\n"
      "\n"
      "# HELP http_requests_total The total number of \\\\ requests.\\nSecond line\n"
      "# TYPE http_requests_total counter\n"
      "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
      "http_requests_total{method=\"post\",code=\"400\",}    3   1395066363000\n"
      "\n"
      "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find "
      "file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n"
      "metric_without_timestamp_and_labels 12.47\n"
      "something_weird{problem=\"division by zero\"} +Inf -3982045\n"
      "  indented_gauge\t-Inf\n"
      "not_a_number NaN\n"
      "# TYPE http_request_duration_seconds histogram\n"
      "http_request_duration_seconds_bucket{le=\"0.05\"} 24054\n"
      "http_request_duration_seconds_bucket{le=\"0.1\"} 33444\n"
      "http_request_duration_seconds_bucket{le=\"+Inf\"} 144320\n"
      "http_request_duration_seconds_sum 53423\n"
      "http_request_duration_seconds_count 144320\n"
      "# TYPE rpc_duration_seconds summary\n"
      "rpc_duration_seconds{quantile=\"0.5\"} 4773\n"
      "rpc_duration_seconds_sum 1.7560473e+07\n"
      "rpc_duration_seconds_count 2693\n";
  const PromExposition e = parse_prometheus_text(text);
  ASSERT_EQ(e.families.size(), 8u);
  const PromFamily* requests = e.family("http_requests_total");
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->type, "counter");
  EXPECT_EQ(*requests->help, "The total number of \\ requests.\nSecond line");
  ASSERT_EQ(requests->samples.size(), 2u);
  EXPECT_EQ(requests->samples[1].labels.at("code"), "400");
  EXPECT_EQ(requests->samples[1].value, 3);
  EXPECT_EQ(*requests->samples[1].timestamp_ms, 1395066363000);
  EXPECT_EQ(e.value("http_requests_total", {{"method", "post"}, {"code", "200"}}), 1027);

  const PromFamily* msdos = e.family("msdos_file_access_time_seconds");
  ASSERT_NE(msdos, nullptr);
  EXPECT_EQ(msdos->type, "untyped");
  EXPECT_EQ(msdos->samples[0].labels.at("path"), "C:\\DIR\\FILE.TXT");
  EXPECT_EQ(msdos->samples[0].labels.at("error"), "Cannot find file:\n\"FILE.TXT\"");
  EXPECT_EQ(msdos->samples[0].value, 1458255915.0);

  const auto weird = e.value("something_weird", {{"problem", "division by zero"}});
  ASSERT_TRUE(weird.has_value());
  EXPECT_TRUE(std::isinf(*weird) && *weird > 0);
  EXPECT_EQ(*e.family("something_weird")->samples[0].timestamp_ms, -3982045);
  EXPECT_TRUE(std::isinf(*e.value("indented_gauge")) && *e.value("indented_gauge") < 0);
  EXPECT_TRUE(std::isnan(*e.value("not_a_number")));
  EXPECT_EQ(e.family("http_request_duration_seconds")->samples.size(), 5u);
  EXPECT_EQ(e.value("http_request_duration_seconds_bucket", {{"le", "0.1"}}), 33444);
  EXPECT_EQ(e.value("rpc_duration_seconds_sum"), 1.7560473e+07);
}

TEST(PrometheusTextParser, ReadsFloatsAsGoDoes) {
  EXPECT_EQ(parse_prometheus_float("1e-05"), 1e-05);
  EXPECT_EQ(parse_prometheus_float("-.5"), -0.5);
  EXPECT_EQ(parse_prometheus_float("3."), 3.0);
  EXPECT_EQ(parse_prometheus_float("+2E+3"), 2000.0);
  EXPECT_TRUE(std::isinf(*parse_prometheus_float("+inf")));
  EXPECT_TRUE(std::isinf(*parse_prometheus_float("-Infinity")));
  EXPECT_FALSE(parse_prometheus_float("").has_value());
  EXPECT_FALSE(parse_prometheus_float("1e").has_value());
  EXPECT_FALSE(parse_prometheus_float(".").has_value());
  EXPECT_FALSE(parse_prometheus_float("1.2.3").has_value());
  EXPECT_FALSE(parse_prometheus_float("12abc").has_value());
  EXPECT_FALSE(parse_prometheus_float("-NaN").has_value());
  EXPECT_FALSE(parse_prometheus_float("1e999").has_value());
}

struct BrokenInput {
  const char* what;
  const char* text;
  const char* message;  // a part of the error
};

// gtest names a case by this (instead of the struct's bytes).
void PrintTo(const BrokenInput& input, std::ostream* os) {
  *os << input.what;
}

std::string broken_input_name(const ::testing::TestParamInfo<BrokenInput>& param) {
  std::string name = param.param.what;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class PrometheusTextParserRejects : public ::testing::TestWithParam<BrokenInput> {};

TEST_P(PrometheusTextParserRejects, EachKindOfBrokenInput) {
  const std::string error = parse_error_of(GetParam().text);
  EXPECT_NE(error.find(GetParam().message), std::string::npos)
      << GetParam().what << ": got \"" << error << "\"";
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, PrometheusTextParserRejects,
    ::testing::Values(
        BrokenInput{"no final line feed", "a 1", "line 1: the last line does not end"},
        BrokenInput{"metric name starts with a digit", "1abc 1\n", "expected a metric name"},
        BrokenInput{"dash in a metric name", "a-b 1\n", "invalid character '-'"},
        BrokenInput{"label name starts with a digit", "a{1x=\"v\"} 1\n", "expected a label name"},
        BrokenInput{"reserved label name", "a{__name__=\"v\"} 1\n", "reserved"},
        BrokenInput{"unquoted label value", "a{x=v} 1\n", "expected '\"'"},
        BrokenInput{"unterminated label value", "a{x=\"v} 1\n", "label value not closed"},
        BrokenInput{"unknown escape", "a{x=\"\\t\"} 1\n", "invalid escape '\\t'"},
        BrokenInput{"missing equals", "a{x \"v\"} 1\n", "expected '='"},
        BrokenInput{"missing comma", "a{x=\"v\" y=\"w\"} 1\n", "expected ',' or '}'"},
        BrokenInput{"label twice", "a{x=\"v\",x=\"w\"} 1\n", "label x given twice"},
        BrokenInput{"no value", "a{x=\"v\"}\n", "has no value"},
        BrokenInput{"bad value", "a 1,5\n", "invalid value '1,5'"},
        BrokenInput{"bad timestamp", "a 1 12.5\n", "invalid timestamp"},
        BrokenInput{"text after timestamp", "a 1 12 extra\n", "after the timestamp"},
        BrokenInput{"unknown type", "# TYPE a countr\na 1\n", "unknown metric type"},
        BrokenInput{"bad HELP escape", "# HELP a x\\y\na 1\n", "invalid escape '\\y' in HELP"}),
    broken_input_name);

INSTANTIATE_TEST_SUITE_P(
    Semantics, PrometheusTextParserRejects,
    ::testing::Values(
        BrokenInput{"TYPE after samples", "a 1\n# TYPE a gauge\n", "line 2: TYPE of a after"},
        BrokenInput{"two TYPE lines", "# TYPE a gauge\n# TYPE a gauge\na 1\n",
                    "second TYPE line for a"},
        BrokenInput{"two HELP lines", "# HELP a x\n# HELP a y\na 1\n", "second HELP line"},
        BrokenInput{"family split", "a 1\nb 1\na{x=\"1\"} 2\n", "line 3: the lines of family a"},
        BrokenInput{"series twice", "a{x=\"1\"} 1\na{x=\"1\"} 2\n", "series given twice"},
        BrokenInput{"negative counter", "# TYPE a_total counter\na_total -1\n", "negative"},
        BrokenInput{"bucket without le", "# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n",
                    "without an \"le\""},
        BrokenInput{"non-numeric le",
                    "# TYPE h histogram\nh_bucket{le=\"x\"} 1\nh_sum 1\nh_count 1\n",
                    "is not a number"},
        BrokenInput{"buckets decrease",
                    "# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 4\n"
                    "h_bucket{le=\"+Inf\"} 5\nh_sum 1\nh_count 5\n",
                    "not cumulative"},
        BrokenInput{"no +Inf bucket",
                    "# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_sum 1\nh_count 5\n",
                    "le=\"+Inf\""},
        BrokenInput{"+Inf differs from count",
                    "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 5\nh_sum 1\nh_count 6\n",
                    "differs from its +Inf bucket"},
        BrokenInput{"no _sum", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 5\nh_count 5\n",
                    "without _sum"},
        BrokenInput{"no _count", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 5\nh_sum 5\n",
                    "without _count"},
        BrokenInput{"histogram without suffix", "# TYPE h histogram\nh 1\n", "without _bucket"},
        BrokenInput{"quantile out of range",
                    "# TYPE s summary\ns{quantile=\"2\"} 1\ns_sum 1\ns_count 1\n",
                    "not in [0, 1]"}),
    broken_input_name);

}  // namespace
}  // namespace slicelab::testing
