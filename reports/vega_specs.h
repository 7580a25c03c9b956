// Vega 5 chart specifications for the report: horizontal bars per policy and lines per policy
// (CDFs, time series, capacity curves), each with its data embedded so the page needs no files.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace slicelab {

// How an axis spreads its values: linear, or logarithmic where the positive values span more
// than 100x (symlog, linear below `constant`, when some are zero).
struct AxisScale {
  std::string type = "linear";  // "linear", "log" or "symlog"
  double constant = 1;          // symlog: where the scale turns from linear to logarithmic
};
AxisScale axis_scale_for(std::span<const double> values);

// Vega expression writing datum.<field> (seconds) as a duration: 45s, 7m, 3.1h, 2d.
std::string duration_label_expr(const std::string& field = "value");
// Tick values (seconds) people read as durations, from 0 or 1 s up to just past `hi`.
std::vector<double> duration_ticks(double lo, double hi);

struct BarRow {
  std::string label;  // one bar (stacked rows share a label)
  std::string color;  // colour key: the policy, a GPU model or a stack part
  double value = 0;
  // An error bar from low to high drawn over the bar (rule mark "error-bars"), unstacked
  // charts only: the 95% interval of the mean over seeds, or a seed range.
  std::optional<double> low = {}, high = {};
};

struct BarOptions {
  std::string title;
  std::string x_title;
  std::string format = ",.3~f";  // d3-format of values on the axis and the bar labels
  bool stacked = false;          // rows with the same label stack left to right
  std::string legend_title;      // shown when non-empty
  AxisScale scale;               // of the value axis (log: bars start at the smallest tick)
  bool durations = false;        // values are seconds; axis ticks and labels read as durations
};

nlohmann::json bar_chart_spec(std::span<const BarRow> rows, const BarOptions& options);

struct XYRow {
  std::string series;
  double x = 0, y = 0;
  bool filled = true;  // points only: filled when the point meets the target
};

struct LineOptions {
  std::string title;
  std::string x_title, y_title;
  std::string x_format = ",.3~f", y_format = ",.3~f";
  std::string x_scale = "linear";  // or "symlog" for heavy-tailed delays that include zero
  double symlog_constant = 1;      // symlog: where the scale turns from linear to logarithmic
  std::vector<double> x_ticks;     // explicit x tick values (empty: Vega chooses)
  std::string x_label_expr;        // Vega expression labelling an x tick (empty: x_format)
  bool step = false;               // CDFs are step functions
  std::optional<double> y_max;     // fixed upper end of y (1 for shares and CDFs)
  std::vector<XYRow> points;       // drawn as symbols over the lines (evaluated sizes)
  std::optional<double> y_rule;    // a horizontal target line
  std::string rule_label;
  std::string legend_title = "policy";
  AxisScale y_scale;          // of the y axis
  bool y_durations = false;   // y values are seconds; ticks and labels read as durations
  std::vector<XYRow> dashed;  // more lines, dashed, in their series' colour (fitted curves)
  struct Label {
    std::string series;
    double x = 0, y = 0;
    std::string text;
  };
  std::vector<Label> labels;  // marked points with their text (a target's crossing)
  // Vertical bars from `low` to `high` at x in their series' colour: a point's spread over
  // seeds (the capacity curves' seed range).
  struct Spread {
    std::string series;
    double x = 0, low = 0, high = 0;
  };
  std::vector<Spread> spreads;
  // Small multiples: one panel per series with shared axes, for more than four series (lines
  // only; points, dashed lines and labels are not drawn then).
  bool facet = false;
};

nlohmann::json line_chart_spec(std::span<const XYRow> rows, const LineOptions& options);

// A cell of a heatmap: panel (one per policy), column and row labels, the value and whether it
// meets the targets (outlined).
struct HeatCell {
  std::string panel, x, y;
  double value = 0;
  std::string text;  // printed in the cell
  bool meets = false;
};

struct HeatmapOptions {
  std::string title, x_title, y_title, legend_title;
  std::vector<std::string> x_order, y_order;  // the columns and rows, in reading order
  AxisScale scale;                            // of the colour
  bool high_is_good = false;                  // colour scheme direction
};

// Small multiples of heatmaps, one panel per distinct `panel`, with a shared colour scale.
nlohmann::json heatmap_spec(std::span<const HeatCell> cells, const HeatmapOptions& options);

}  // namespace slicelab
