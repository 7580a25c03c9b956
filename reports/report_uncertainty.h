// How sure a multi-seed results folder is of each figure: summary.json's per-policy
// "uncertainty" block read back, and a figure written with its interval for the report.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// One entry of a policy's "uncertainty" block (docs/results-format.md): over the n seeds that
// hold a value, the 95% confidence interval of the mean (none when n < 2) and the seed range.
struct FigureSpread {
  size_t n = 0;
  std::optional<double> ci_low, ci_high;
  std::optional<double> min, max;
};

// The entry of `key` (a run-metrics row's json key, "queue_delay_s.p99") in `policy`'s
// "uncertainty" block; none when the block, the entry or its n is absent. Members that are not
// numbers read as absent, so that a partial entry still gives what it has.
std::optional<FigureSpread> figure_spread(const nlohmann::ordered_json& policy,
                                          std::string_view key);

// What a bar's error bar spans. A maximum's interval of the mean says little about the worst
// case a seed can show, so `.max` rows span the seed range (min..max) instead.
struct ErrorBar {
  double low = 0, high = 0;
  bool seed_range = false;  // min..max over seeds rather than the 95% interval of the mean
};
std::optional<ErrorBar> error_bar(const nlohmann::ordered_json& policy, std::string_view key);
bool spans_seed_range(std::string_view key);

// The seeds of a multi-seed summary ("seeds"); 0 for a single-seed summary.
size_t seed_count(const nlohmann::ordered_json& summary);

// Whether some policy of the summary carries an "uncertainty" block.
bool has_uncertainty(const nlohmann::ordered_json& summary);

// `cell` (row `m`'s figure as metric_cell wrote it) with its spread appended where `policy`
// has one: "4.5h ± 1.2h" (half the 95% interval, in the row's format) or, for `.max` rows,
// "6.0h (3.0h-9.0h)" (the seed range). Unchanged without a spread, for "-" and for rows whose
// cell is not a single figure (points mean/max).
std::string cell_with_spread(const RunMetric& m, const std::string& cell,
                             const nlohmann::ordered_json& policy);

// The same for a figure written by `format` (a duration, a percentage) under dotted key `key`.
std::string cell_with_spread(std::string_view key, const std::string& cell,
                             const nlohmann::ordered_json& policy,
                             std::string (*format)(std::optional<double>));

// A count's spread (a half width, a seed range end): one decimal below 10, so that a small
// interval does not read "± 0".
std::string spread_count(std::optional<double> v);

// The sentence a table with spreads in its cells carries ("" when the summary has none).
std::string spread_note(const nlohmann::ordered_json& summary);

}  // namespace slicelab
