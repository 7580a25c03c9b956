// A strict reader of Prometheus's text exposition format 0.0.4, written from the format's
// grammar, so that tests can check that a /metrics body is what a Prometheus server accepts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::testing {

// "line N: what is wrong" (line 0: the whole text).
class PrometheusTextError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PromSample {
  std::string name;  // as written: for a histogram, name_bucket, name_sum or name_count
  std::map<std::string, std::string> labels;  // values unescaped
  double value = 0;
  std::optional<int64_t> timestamp_ms;
  int line = 0;
};

struct PromFamily {
  std::string name;
  std::string type = "untyped";     // counter, gauge, histogram, summary or untyped
  std::optional<std::string> help;  // unescaped
  std::vector<PromSample> samples;
};

struct PromExposition {
  std::vector<PromFamily> families;  // in the order they appear

  const PromFamily* family(std::string_view name) const;
  // The value of the sample with exactly these labels, if present.
  std::optional<double> value(std::string_view sample_name,
                              const std::map<std::string, std::string>& labels = {}) const;
};

// Parses `text` and checks it: the grammar of every line (comments, HELP, TYPE, metric and
// label names, escaped label values, values including +Inf/-Inf/NaN, optional timestamps), and
// the rules across lines: one HELP and one TYPE per family, TYPE before the family's samples,
// a family's lines together, no series twice, counters not negative, histograms with an "le"
// on each bucket, cumulative non-decreasing buckets, a +Inf bucket equal to _count, and _sum;
// summaries with quantiles in [0, 1], _sum and _count. Throws PrometheusTextError.
PromExposition parse_prometheus_text(std::string_view text);

// A value token as the format reads it (Go's ParseFloat for decimal floats, and "+Inf", "-Inf",
// "NaN" in any case); nullopt when it is not one.
std::optional<double> parse_prometheus_float(std::string_view token);

}  // namespace slicelab::testing
