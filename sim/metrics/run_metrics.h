// The one table of run metrics: every figure of a RunSummary that summary.json, the seed means,
// the terminal table, the report and the planner's targets show, one row each (run_metrics.cc).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/metrics/run_result.h"

namespace slicelab {

enum class MetricUnit : uint8_t {
  kPods,        // whole pods (summary.json: an integer)
  kCount,       // whole things, not pods (an integer)
  kShare,       // 0..1
  kSeconds,     // simulated seconds
  kFactor,      // a ratio of times (slowdown)
  kGpus,        // GPUs (fractional for shares)
  kGpuHours,    //
  kGpuSeconds,  //
  kUsd,         //
  kNone,        // blocks: not one number (not_placed_reasons, per_model, per_class)
};
bool is_whole(MetricUnit u);
std::string_view unit_name(MetricUnit u);

// How the seed means (slicelab.seeds/1) combine a metric over k seeds. "Holding a value": the
// getter gives one for that seed.
enum class SeedMean : uint8_t {
  kMean,           // sum of value/k over the seeds holding one (set when any does)
  kRoundedMean,    // whole numbers: round(sum / k), set when any seed holds one
  kRoundedEach,    // sum of round(value / k): the engine's counters, as they always were
  kMeanOfHolders,  // sum / (seeds holding one); none when none does (percentiles, SLO)
  kLast,           // the last value held: a setting, not a figure (fill capacity)
  kNotAveraged,    // not averaged: the means leave it unset (0, null or empty)
  kOfTheMeans,     // computed (no setter) from other rows: the means give it from their means
};
std::string_view seed_mean_name(SeedMean m);

// How a column cell writes its value (the same in the terminal table and the report).
enum class CellFormat : uint8_t {
  kInteger,        // "12"
  kPercent,        // "51.7%"
  kDuration,       // "7.0m"
  kFixed1,         // "12.3"
  kFixed2,         // "1.23"
  kPointsMeanMax,  // "1.2/3.4 pt": this row (a mean) and the row `<group>.max`, in points
  kLatency,        // "85ms" below a second, else as kDuration
};

// What the report does with a top-level key of summary.json that this row writes.
enum class ReportUse : uint8_t {
  kKnown,      // read by name (a column or one of its own tables), or deliberately not shown
  kFlattened,  // listed as written, under "More figures" / "Isolation figures"
};

// Blocks of summary.json that are not one number; the writers spell them out where the row is.
enum class MetricBlock : uint8_t {
  kNumber,
  kNotPlacedReasons,
  kPerModel,
  kPerClass,
  kPerQueue,
  kPerService,
};

using MetricGetter = std::optional<double> (*)(const RunSummary&);  // nullopt: none (null)
using MetricSetter = void (*)(RunSummary&, double);
using SummaryTest = bool (*)(const RunSummary&);

// Reads and writes one figure of a RunSummary. The setter creates an optional group (fill, a mode
// figure) it writes into; the seed means and tests use it.
struct MetricAccess {
  MetricGetter get = nullptr;
  MetricSetter set = nullptr;
};

// A column of the terminal comparison table and/or the report's "Policies compared" table,
// both after the policy's name and sharing mode.
struct MetricColumn {
  std::string_view head{};  // "" = no column
  uint8_t position = 0;     // order among the columns (the same in both tables)
  CellFormat format = CellFormat::kInteger;
  // Terminal: kNeverInTerminal, 0 = only with --wide, else how long it stays when the table is
  // narrowed to kTerminalColumns (the lowest goes first).
  int8_t keep = 0;
  bool report = false;  // also in the report's table
  // Terminal: only when some run passes (nullptr: always); the report leaves such a column out
  // when no policy has a value other than 0.
  SummaryTest shown_if = nullptr;
  std::string_view label{};  // the report's head, for people ("" = head)
};
constexpr int8_t kNeverInTerminal = -1;

// A planner target / sweep.csv column name and its place in metric_names() (1-based).
struct MetricTarget {
  std::string_view name{};  // "" = not a target
  uint8_t order = 0;
  bool plan_headline = false;  // shown for every plan at the recommended size
};

struct RunMetric {
  // Dotted key in a policy object of summary.json ("pods.completed"), in the file's key order;
  // "" = not written (a derived figure only shown as a column).
  std::string_view json{};
  MetricUnit unit = MetricUnit::kNone;
  MetricAccess access{};  // none for blocks and derived rows
  SeedMean mean = SeedMean::kNotAveraged;
  SummaryTest written_if = nullptr;  // nullptr: always written; else left out when false
  MetricTarget target{};
  MetricColumn column{};
  ReportUse report = ReportUse::kKnown;
  MetricBlock block = MetricBlock::kNumber;
  // A derived figure (no access): the sum of these rows (by json key), none when neither has a
  // value. Its seed mean is the sum of theirs.
  std::array<std::string_view, 2> sum_of{};
  std::string_view meaning{};  // one line for docs/results-format.md
};

// Every row, in summary.json's key order.
std::span<const RunMetric> run_metrics();
// The row written at `json`; nullptr when none.
const RunMetric* find_run_metric(std::string_view json);
// The row's value in `s` (derived rows: the sum of their rows).
std::optional<double> metric_value(const RunMetric& m, const RunSummary& s);
// The rows that are planner targets, in target order (sweep.csv's metric columns).
std::span<const RunMetric* const> target_metrics();
std::span<const std::string_view> target_names();  // their names, in the same order
// The rows with a column, in column order.
std::span<const RunMetric* const> column_metrics();

// The Markdown list of every row for docs/results-format.md (checked by a test).
std::string run_metrics_markdown();

}  // namespace slicelab
