// Vega 5 chart specifications for the report: horizontal bars per policy and lines per policy
// (CDFs, time series, capacity curves), each with its data embedded so the page needs no files.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace slicelab {

struct BarRow {
  std::string label;  // one bar (stacked rows share a label)
  std::string color;  // colour key: the policy, a GPU model or a stack part
  double value = 0;
};

struct BarOptions {
  std::string title;
  std::string x_title;
  std::string format = ",.3~f";  // d3-format of values on the axis and the bar labels
  bool stacked = false;          // rows with the same label stack left to right
  std::string legend_title;      // shown when non-empty
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
};

nlohmann::json line_chart_spec(std::span<const XYRow> rows, const LineOptions& options);

}  // namespace slicelab
