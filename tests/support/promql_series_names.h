// The series names a PromQL expression selects, for tests that check a dashboard queries only
// series an exporter writes: a small tokenizer, not a PromQL parser.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::testing {

class PromqlTokenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One vector selector: its metric, and the label names its matchers test (`__name__` aside).
struct PromqlSelector {
  std::string name;
  std::vector<std::string> labels;
};

// Every metric name `expr` selects, in order of appearance (repeats kept): identifiers that are
// not followed by `(` (functions), not PromQL keywords (aggregations such as sum or topk, by,
// without, on, ignoring, group_left, group_right, bool, and, or, unless, offset, inf, nan), not
// in the label lists after by/without/on/ignoring/group_left/group_right, not inside `{...}`
// label matchers, `[...]` ranges, strings or comments, and not Grafana variables ($x, ${x},
// [[x]]). A selector written `{__name__="m"}` yields `m`. Names are returned as written: a
// histogram's series end in _bucket, _sum or _count. Throws PromqlTokenError on an unclosed
// string, brace, bracket or parenthesis, or a stray closing one.
std::vector<std::string> promql_series_names(std::string_view expr);
// The same selectors with their matchers' label names, in order of appearance.
std::vector<PromqlSelector> promql_selectors(std::string_view expr);

// Grafana's template-variable query `label_values(selector, label)` (or `metrics(...)`,
// `label_names()`, `query_result(expr)`) as the PromQL expression whose series it reads: for
// label_values the selector, for query_result its expression; an expression that is none of
// these is returned as it is.
std::string grafana_variable_expression(std::string_view query);

}  // namespace slicelab::testing
