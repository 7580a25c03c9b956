#include "reports/vega_specs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace slicelab {
namespace {

using json = nlohmann::json;

constexpr int kWidth = 380;

// Six significant digits are plenty for a chart and keep the page small and byte-stable.
double tidy(double v) {
  if (!std::isfinite(v)) return 0;
  return std::stod(fmt::format("{:.6g}", v));
}

json title_of(const std::string& text) {
  return {{"text", text}, {"anchor", "start"}, {"fontSize", 13}};
}

std::string format_signal(const std::string& field, const std::string& format) {
  return fmt::format("format(datum.{}, '{}')", field, format);
}

// The scale of `kind` over `domain` for a value axis named `name` spanning `range`.
json value_scale(const std::string& name, const AxisScale& kind, json domain, json range) {
  json scale = {{"name", name},
                {"type", kind.type},
                {"domain", std::move(domain)},
                {"range", std::move(range)}};
  if (kind.type == "linear") {
    scale["nice"] = true;
    scale["zero"] = true;
  } else {
    scale["zero"] = false;
    scale["nice"] = false;
  }
  if (kind.type == "symlog") scale["constant"] = tidy(kind.constant);
  return scale;
}

// Ticks and labels of a value axis: durations where the values are seconds.
void label_axis(json& axis, bool durations, const AxisScale& kind, double lo, double hi) {
  if (!durations) return;
  json ticks = json::array();
  for (const double t : duration_ticks(kind.type == "log" ? lo : 0, hi))
    // Symlog squeezes everything below its constant next to zero: ticks there would overlap.
    if (kind.type != "symlog" || t == 0 || t >= kind.constant) ticks.push_back(tidy(t));
  axis["values"] = ticks;
  axis.erase("format");
  axis["encode"] = {{"labels", {{"update", {{"text", {{"signal", duration_label_expr()}}}}}}}};
}

}  // namespace

AxisScale axis_scale_for(std::span<const double> values) {
  double lo = 0, hi = 0;
  bool positive = false, nonpositive = false;
  for (const double v : values) {
    if (!std::isfinite(v)) continue;
    if (v <= 0) {
      nonpositive = true;
      continue;
    }
    lo = positive ? std::min(lo, v) : v;
    hi = positive ? std::max(hi, v) : v;
    positive = true;
  }
  AxisScale out;
  if (!positive || hi <= 100 * lo) return out;
  out.type = nonpositive ? "symlog" : "log";
  out.constant = lo;
  return out;
}

std::string duration_label_expr(const std::string& field) {
  const std::string v = "datum." + field;
  return fmt::format(
      "{0} < 60 ? format({0}, '.2~r') + 's' : {0} < 3600 ? format({0} / 60, '.2~r') + 'm' : "
      "{0} < 86400 ? format({0} / 3600, '.2~r') + 'h' : format({0} / 86400, '.2~r') + 'd'",
      v);
}

std::vector<double> duration_ticks(double lo, double hi) {
  std::vector<double> out;
  for (const double t : {0.0, 1.0, 10.0, 60.0, 300.0, 900.0, 3600.0, 4 * 3600.0, 12 * 3600.0,
                         86400.0, 4 * 86400.0, 14 * 86400.0, 60 * 86400.0, 365 * 86400.0})
    if (t >= lo * 0.999 && (t <= hi * 1.05 || out.empty())) out.push_back(t);
  // Few ticks on a narrow range: add its ends.
  if (out.size() < 3 && hi > 0) out.push_back(hi);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

json bar_chart_spec(std::span<const BarRow> rows, const BarOptions& o) {
  json values = json::array();
  // Each label's bar end in one pass (a pass per label was quadratic in the entries).
  std::vector<std::string> labels;
  std::unordered_map<std::string, double> ends;
  double max_end = 0;
  json intervals = json::array();
  for (const BarRow& r : rows) {
    json row = {{"label", r.label}, {"color", r.color}, {"value", tidy(r.value)}};
    // The value label goes past the error bar's end so that the two do not overlap.
    double text_at = r.value;
    if (!o.stacked && r.low && r.high) {
      // Bars start at zero: an interval reaching below it is drawn from zero.
      const double low = std::max(0.0, std::min(*r.low, r.value));
      const double high = std::max(*r.high, r.value);
      intervals.push_back({{"label", r.label},
                           {"low", tidy(low)},
                           {"high", tidy(high)},
                           {"low_given", tidy(*r.low)},
                           {"high_given", tidy(*r.high)}});
      text_at = high;
      row["text_at"] = tidy(text_at);
    }
    values.push_back(std::move(row));
    const auto [at, fresh] = ends.try_emplace(r.label, 0.0);
    if (fresh) labels.push_back(r.label);
    double& end = at->second;
    end = o.stacked ? end + r.value : std::max(end, text_at);
  }
  for (const auto& [label, end] : ends) max_end = std::max(max_end, end);
  // Charts without intervals keep their labels at the bar's end (and their bytes unchanged).
  if (!intervals.empty())
    for (json& row : values)
      if (!row.contains("text_at")) row["text_at"] = row["value"];
  json table = {{"name", "table"}, {"values", values}};
  // Stacked or not, every bar runs from v0 to v1, so one mark draws both kinds.
  if (o.stacked)
    table["transform"] = json::array(
        {{{"type", "stack"}, {"groupby", {"label"}}, {"field", "value"}, {"as", {"v0", "v1"}}}});
  else
    table["transform"] =
        json::array({{{"type", "formula"}, {"expr", "0"}, {"as", "v0"}},
                     {{"type", "formula"}, {"expr", "datum.value"}, {"as", "v1"}}});
  // Bars start at zero, so a spread of values is drawn on symlog (log above the constant).
  AxisScale kind = o.scale;
  if (kind.type == "log") kind.type = "symlog";
  json x_scale = value_scale("x", kind, json::array({0, max_end > 0 ? max_end : 1}), json("width"));
  json x_axis = {{"orient", "bottom"}, {"scale", "x"}, {"title", o.x_title},
                 {"format", o.format}, {"grid", true}, {"tickCount", 5}};
  label_axis(x_axis, o.durations, kind, 0, max_end);
  const std::string value_text =
      o.durations ? duration_label_expr() : format_signal("value", o.format);
  json spec = {
      {"width", kWidth},
      {"height", std::max<size_t>(labels.size(), 1) * 24},
      {"padding", 5},
      {"title", title_of(o.title)},
      {"data", intervals.empty()
                   ? json::array({table})
                   : json::array({table, {{"name", "intervals"}, {"values", intervals}}})},
      {"scales", json::array({{{"name", "y"},
                               {"type", "band"},
                               {"domain", labels},
                               {"range", "height"},
                               {"padding", 0.2}},
                              x_scale,
                              {{"name", "color"},
                               {"type", "ordinal"},
                               {"domain", {{"data", "table"}, {"field", "color"}}},
                               {"range", "category"}}})},
      {"axes", json::array({x_axis, {{"orient", "left"}, {"scale", "y"}, {"labelLimit", 160}}})}};
  json encode = {
      {"y", {{"scale", "y"}, {"field", "label"}}},
      {"height", {{"scale", "y"}, {"band", 1}}},
      {"x", {{"scale", "x"}, {"field", "v0"}}},
      {"x2", {{"scale", "x"}, {"field", "v1"}}},
      {"fill", {{"scale", "color"}, {"field", "color"}}},
      {"tooltip", {{"signal", "datum.label + ' ' + datum.color + ': ' + (" + value_text + ")"}}}};
  json marks = json::array({{{"type", "rect"},
                             {"name", "bars"},
                             {"from", {{"data", "table"}}},
                             {"encode", {{"enter", encode}}}}});
  if (!intervals.empty()) {
    const std::string low_text =
        o.durations ? duration_label_expr("low_given") : format_signal("low_given", o.format);
    const std::string high_text =
        o.durations ? duration_label_expr("high_given") : format_signal("high_given", o.format);
    marks.push_back({{"type", "rule"},
                     {"name", "error-bars"},
                     {"from", {{"data", "intervals"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"scale", "x"}, {"field", "low"}}},
                         {"x2", {{"scale", "x"}, {"field", "high"}}},
                         {"y", {{"scale", "y"}, {"field", "label"}, {"band", 0.5}}},
                         {"stroke", {{"value", "#222"}}},
                         {"strokeWidth", {{"value", 1.5}}},
                         {"tooltip",
                          {{"signal", "datum.label + ': ' + (" + low_text + ") + ' to ' + (" +
                                          high_text + ")"}}}}}}}});
    // Short caps at both ends, so an interval reads as one even where it lies inside the bar.
    for (const char* end : {"low", "high"})
      marks.push_back({{"type", "rule"},
                       {"name", std::string("error-bar-") + end},
                       {"from", {{"data", "intervals"}}},
                       {"encode",
                        {{"enter",
                          {{"x", {{"scale", "x"}, {"field", end}}},
                           {"y", {{"scale", "y"}, {"field", "label"}, {"band", 0.25}}},
                           {"y2", {{"scale", "y"}, {"field", "label"}, {"band", 0.75}}},
                           {"stroke", {{"value", "#222"}}},
                           {"strokeWidth", {{"value", 1.5}}}}}}}});
  }
  if (!o.stacked)  // the value at the end of each bar, so the reader needs no axis lookup
    marks.push_back(
        {{"type", "text"},
         {"from", {{"data", "table"}}},
         {"encode",
          {{"enter",
            {{"x",
              {{"scale", "x"}, {"field", intervals.empty() ? "v1" : "text_at"}, {"offset", 4}}},
             {"y", {{"scale", "y"}, {"field", "label"}, {"band", 0.5}}},
             {"baseline", {{"value", "middle"}}},
             {"fontSize", {{"value", 10}}},
             {"fill", {{"value", "#333"}}},
             {"text", {{"signal", value_text}}}}}}}});
  spec["marks"] = marks;
  if (!o.legend_title.empty())
    // Offset past the value labels that stick out right of the longest bar.
    spec["legends"] = json::array(
        {{{"fill", "color"}, {"title", o.legend_title}, {"offset", o.stacked ? 18 : 44}}});
  return spec;
}

namespace {

json line_mark(const std::string& from, bool step, bool dashed) {
  json enter = {{"x", {{"scale", "x"}, {"field", "x"}}},
                {"y", {{"scale", "y"}, {"field", "y"}}},
                {"stroke", {{"scale", "color"}, {"field", "series"}}},
                {"strokeWidth", {{"value", dashed ? 1.5 : 2}}},
                {"interpolate", {{"value", step ? "step-after" : "linear"}}}};
  if (dashed) enter["strokeDash"] = {{"value", {5, 3}}};
  return {{"type", "line"}, {"from", {{"data", from}}}, {"encode", {{"enter", enter}}}};
}

// One line per series: a group faceted by series around a line mark.
json lines_by_series(const std::string& data, bool step, bool dashed) {
  const std::string name = data + "_by_series";
  return {{"type", "group"},
          {"from", {{"facet", {{"name", name}, {"data", data}, {"groupby", "series"}}}}},
          {"marks", json::array({line_mark(name, step, dashed)})}};
}

json value_rows(std::span<const XYRow> rows) {
  json values = json::array();
  for (const XYRow& r : rows)
    values.push_back({{"series", r.series}, {"x", tidy(r.x)}, {"y", tidy(r.y)}});
  return values;
}

std::pair<double, double> y_extent(std::span<const XYRow> rows, const LineOptions& o) {
  std::vector<double> ys;
  for (const XYRow& r : rows) ys.push_back(r.y);
  for (const XYRow& r : o.points) ys.push_back(r.y);
  for (const XYRow& r : o.dashed) ys.push_back(r.y);
  for (const auto& b : o.spreads) ys.insert(ys.end(), {b.low, b.high});
  if (o.y_rule) ys.push_back(*o.y_rule);
  double lo = 0, hi = 0;
  bool any = false;
  for (const double y : ys)
    if (y > 0) {
      lo = any ? std::min(lo, y) : y;
      hi = any ? std::max(hi, y) : y;
      any = true;
    }
  return {lo, hi};
}

json y_axis_of(const LineOptions& o, std::span<const XYRow> rows) {
  json axis = {{"orient", "left"},     {"scale", "y"},   {"title", o.y_title},
               {"format", o.y_format}, {"tickCount", 5}, {"grid", true}};
  const auto [lo, hi] = y_extent(rows, o);
  label_axis(axis, o.y_durations, o.y_scale, lo, hi);
  return axis;
}

json x_axis_of(const LineOptions& o) {
  json x_axis = {{"orient", "bottom"},   {"scale", "x"},   {"title", o.x_title},
                 {"format", o.x_format}, {"tickCount", 6}, {"grid", true}};
  if (!o.x_ticks.empty()) {
    json ticks = json::array();
    for (const double t : o.x_ticks) ticks.push_back(tidy(t));
    x_axis["values"] = ticks;
  }
  if (!o.x_label_expr.empty())  // Vega (unlike Vega-Lite) sets label text through encode
    x_axis["encode"] = {{"labels", {{"update", {{"text", {{"signal", o.x_label_expr}}}}}}}};
  return x_axis;
}

json x_scale_of(const LineOptions& o, json domain, json range) {
  json x_scale = {{"name", "x"},
                  {"type", o.x_scale},
                  {"domain", std::move(domain)},
                  {"range", std::move(range)},
                  {"zero", false}};
  if (o.x_scale == "linear") x_scale["nice"] = true;
  if (o.x_scale == "symlog") x_scale["constant"] = tidy(o.symlog_constant);
  return x_scale;
}

// Small multiples: a panel per series, three columns, shared scales.
json faceted_line_chart(std::span<const XYRow> rows, const LineOptions& o) {
  json y_scale = value_scale("y", o.y_scale, {{"data", "table"}, {"field", "y"}},
                             json::array({{{"signal", "cellHeight"}}, 0}));
  if (o.y_max) y_scale["domainMax"] = *o.y_max;
  json panel = {
      {"type", "group"},
      {"from", {{"facet", {{"name", "panel"}, {"data", "table"}, {"groupby", "series"}}}}},
      {"title", {{"text", {{"signal", "parent.series"}}}, {"fontSize", 11}, {"anchor", "start"}}},
      {"encode",
       {{"update",
         {{"width", {{"signal", "cellWidth"}}}, {"height", {{"signal", "cellHeight"}}}}}}},
      {"axes", json::array({x_axis_of(o), y_axis_of(o, rows)})},
      {"marks", json::array({line_mark("panel", o.step, false)})}};
  return {{"padding", 5},
          {"title", title_of(o.title)},
          {"signals", json::array({{{"name", "cellWidth"}, {"value", 230}},
                                   {{"name", "cellHeight"}, {"value", 90}}})},
          {"layout",
           {{"columns", 3},
            {"padding", {{"row", 18}, {"column", 24}}},
            {"bounds", "full"},
            {"align", "all"}}},
          {"data", json::array({{{"name", "table"}, {"values", value_rows(rows)}}})},
          {"scales", json::array({x_scale_of(o, {{"data", "table"}, {"field", "x"}},
                                             json::array({0, {{"signal", "cellWidth"}}})),
                                  y_scale,
                                  {{"name", "color"},
                                   {"type", "ordinal"},
                                   {"domain", {{"data", "table"}, {"field", "series"}}},
                                   {"range", "category"}}})},
          {"marks", json::array({panel})}};
}

}  // namespace

json line_chart_spec(std::span<const XYRow> rows, const LineOptions& o) {
  if (o.facet) return faceted_line_chart(rows, o);
  json points = json::array();
  for (const XYRow& r : o.points)
    points.push_back(
        {{"series", r.series}, {"x", tidy(r.x)}, {"y", tidy(r.y)}, {"meets", r.filled}});
  json labels = json::array();
  for (size_t i = 0; i < o.labels.size(); ++i) {
    const auto& l = o.labels[i];
    // Stacked upward so that labels of nearby points do not overlap.
    labels.push_back({{"series", l.series},
                      {"x", tidy(l.x)},
                      {"y", tidy(l.y)},
                      {"text", l.text},
                      {"dy", -10 - 12 * static_cast<int>(i)}});
  }
  // Only data sets with rows take part in the domains: an empty one makes Vega warn about an
  // infinite extent. Domains span lines, points and the target line, so nothing is cut off.
  json data = json::array();
  json x_fields = json::array(), y_fields = json::array(), series_fields = json::array();
  json values = value_rows(rows), dashed = value_rows(o.dashed);
  for (const auto& [name, rows_of] : {std::pair{"table", &values}, std::pair{"points", &points},
                                      std::pair{"dashed", &dashed}, std::pair{"labels", &labels}}) {
    data.push_back({{"name", name}, {"values", *rows_of}});
    if (rows_of->empty()) continue;
    x_fields.push_back({{"data", name}, {"field", "x"}});
    y_fields.push_back({{"data", name}, {"field", "y"}});
    series_fields.push_back({{"data", name}, {"field", "series"}});
  }
  if (o.y_rule) {
    data.push_back({{"name", "rule"}, {"values", json::array({{{"y", tidy(*o.y_rule)}}})}});
    y_fields.push_back({{"data", "rule"}, {"field", "y"}});
  }
  if (!o.spreads.empty()) {
    json spreads = json::array();
    for (const auto& b : o.spreads)
      spreads.push_back(
          {{"series", b.series}, {"x", tidy(b.x)}, {"y", tidy(b.low)}, {"y2", tidy(b.high)}});
    // A data set may not share its name with a mark (Vega refuses the spec).
    data.push_back({{"name", "seed_ranges"}, {"values", spreads}});
    for (const char* f : {"y", "y2"}) y_fields.push_back({{"data", "seed_ranges"}, {"field", f}});
  }
  json y_scale = value_scale("y", o.y_scale, {{"fields", y_fields}}, "height");
  if (o.y_max) y_scale["domainMax"] = *o.y_max;
  json series_domain = {{"fields", series_fields}};
  json marks = json::array({lines_by_series("table", o.step, false)});
  if (!o.dashed.empty()) marks.push_back(lines_by_series("dashed", false, true));
  if (!o.spreads.empty())  // under the points, so a point stays readable on its bar
    marks.push_back({{"type", "rule"},
                     {"name", "spreads"},
                     {"from", {{"data", "seed_ranges"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"scale", "x"}, {"field", "x"}}},
                         {"y", {{"scale", "y"}, {"field", "y"}}},
                         {"y2", {{"scale", "y"}, {"field", "y2"}}},
                         {"stroke", {{"scale", "color"}, {"field", "series"}}},
                         {"strokeWidth", {{"value", 1.5}}},
                         {"strokeOpacity", {{"value", 0.6}}}}}}}});
  const std::string y_text =
      o.y_durations ? "(" + duration_label_expr("y") + ")" : format_signal("y", o.y_format);
  if (!o.points.empty())
    marks.push_back(
        {{"type", "symbol"},
         {"from", {{"data", "points"}}},
         {"encode",
          {{"enter",
            {{"x", {{"scale", "x"}, {"field", "x"}}},
             {"y", {{"scale", "y"}, {"field", "y"}}},
             {"size", {{"value", 60}}},
             {"stroke", {{"scale", "color"}, {"field", "series"}}},
             {"strokeWidth", {{"value", 2}}},
             {"fill", {{"signal", "datum.meets ? scale('color', datum.series) : 'white'"}}},
             {"tooltip",
              {{"signal", "datum.series + ': ' + format(datum.x, ',') + ' GPUs -> ' + " + y_text +
                              " + (datum.meets ? ' (meets)' : ' (misses)')"}}}}}}}});
  if (o.y_rule) {
    marks.push_back({{"type", "rule"},
                     {"from", {{"data", "rule"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"value", 0}}},
                         {"x2", {{"signal", "width"}}},
                         {"y", {{"scale", "y"}, {"field", "y"}}},
                         {"stroke", {{"value", "#c0392b"}}},
                         {"strokeDash", {{"value", {6, 4}}}}}}}}});
    marks.push_back({{"type", "text"},
                     {"from", {{"data", "rule"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"signal", "width"}}},
                         {"y", {{"scale", "y"}, {"field", "y"}, {"offset", -4}}},
                         {"align", {{"value", "right"}}},
                         {"fontSize", {{"value", 10}}},
                         {"fill", {{"value", "#c0392b"}}},
                         {"text", {{"value", o.rule_label}}}}}}}});
  }
  if (!o.labels.empty()) {
    marks.push_back({{"type", "symbol"},
                     {"name", "crossings"},
                     {"from", {{"data", "labels"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"scale", "x"}, {"field", "x"}}},
                         {"y", {{"scale", "y"}, {"field", "y"}}},
                         {"shape", {{"value", "diamond"}}},
                         {"size", {{"value", 110}}},
                         {"fill", {{"scale", "color"}, {"field", "series"}}},
                         {"stroke", {{"value", "#222"}}},
                         {"strokeWidth", {{"value", 1}}},
                         {"tooltip", {{"field", "text"}}}}}}}});
    marks.push_back({{"type", "text"},
                     {"from", {{"data", "labels"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"scale", "x"}, {"field", "x"}, {"offset", 7}}},
                         {"y", {{"scale", "y"}, {"field", "y"}}},
                         {"dy", {{"field", "dy"}}},
                         {"align", {{"value", "left"}}},
                         {"fontSize", {{"value", 10}}},
                         {"fontWeight", {{"value", "bold"}}},
                         {"fill", {{"scale", "color"}, {"field", "series"}}},
                         {"text", {{"field", "text"}}}}}}}});
  }
  json spec = {{"width", kWidth},
               {"height", 220},
               {"padding", 5},
               {"title", title_of(o.title)},
               {"data", data},
               {"scales", json::array({x_scale_of(o, {{"fields", x_fields}}, "width"),
                                       y_scale,
                                       {{"name", "color"},
                                        {"type", "ordinal"},
                                        {"domain", series_domain},
                                        {"range", "category"}}})},
               {"axes", json::array({x_axis_of(o), y_axis_of(o, rows)})},
               {"legends", json::array({{{"stroke", "color"}, {"title", o.legend_title}}})},
               {"marks", marks}};
  return spec;
}

json heatmap_spec(std::span<const HeatCell> cells, const HeatmapOptions& o) {
  json values = json::array();
  std::vector<std::string> panels;
  for (const HeatCell& c : cells) {
    values.push_back({{"panel", c.panel},
                      {"x", c.x},
                      {"y", c.y},
                      {"value", tidy(c.value)},
                      {"text", c.text},
                      {"meets", c.meets}});
    if (std::find(panels.begin(), panels.end(), c.panel) == panels.end()) panels.push_back(c.panel);
  }
  const int cell = 34;
  const auto w = static_cast<int>(std::max<size_t>(o.x_order.size(), 1)) * cell * 2;
  const auto h = static_cast<int>(std::max<size_t>(o.y_order.size(), 1)) * cell;
  json color = {{"name", "color"},
                {"type", o.scale.type == "linear" ? "linear" : o.scale.type},
                {"domain", {{"data", "table"}, {"field", "value"}}},
                {"scheme", "blues"},
                {"reverse", o.high_is_good},
                {"zero", false}};
  if (o.scale.type == "symlog") color["constant"] = tidy(o.scale.constant);
  json rect = {{"type", "rect"},
               {"from", {{"data", "cells"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "x"}}},
                   {"width", {{"scale", "x"}, {"band", 1}}},
                   {"y", {{"scale", "y"}, {"field", "y"}}},
                   {"height", {{"scale", "y"}, {"band", 1}}},
                   {"fill", {{"scale", "color"}, {"field", "value"}}},
                   {"stroke", {{"signal", "datum.meets ? '#1e8449' : '#ffffff'"}}},
                   {"strokeWidth", {{"signal", "datum.meets ? 2.5 : 1"}}},
                   {"tooltip",
                    {{"signal",
                      "datum.panel + ' ' + datum.x + ', ' + datum.y + ': ' + "
                      "datum.text + (datum.meets ? ' (meets)' : '')"}}}}}}}};
  json text = {{"type", "text"},
               {"from", {{"data", "cells"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "x"}, {"band", 0.5}}},
                   {"y", {{"scale", "y"}, {"field", "y"}, {"band", 0.5}}},
                   {"align", {{"value", "center"}}},
                   {"baseline", {{"value", "middle"}}},
                   {"fontSize", {{"value", 10}}},
                   {"fill",
                    {{"signal",
                      "luminance(scale('color', datum.value)) > 0.45 ? "
                      "'#222' : '#fff'"}}},
                   {"text", {{"field", "text"}}}}}}}};
  json panel = {
      {"type", "group"},
      {"from", {{"facet", {{"name", "cells"}, {"data", "table"}, {"groupby", "panel"}}}}},
      {"title", {{"text", {{"signal", "parent.panel"}}}, {"fontSize", 11}, {"anchor", "start"}}},
      {"encode", {{"update", {{"width", {{"value", w}}}, {"height", {{"value", h}}}}}}},
      {"axes", json::array({{{"orient", "bottom"}, {"scale", "x"}, {"title", o.x_title}},
                            {{"orient", "left"}, {"scale", "y"}, {"title", o.y_title}}})},
      {"marks", json::array({rect, text})}};
  return {{"padding", 5},
          {"title", title_of(o.title)},
          {"layout",
           {{"columns", std::min<size_t>(std::max<size_t>(panels.size(), 1), 4)},
            {"padding", {{"row", 16}, {"column", 20}}},
            {"bounds", "full"},
            {"align", "all"}}},
          {"data", json::array({{{"name", "table"}, {"values", values}}})},
          {"scales", json::array({{{"name", "x"},
                                   {"type", "band"},
                                   {"domain", o.x_order},
                                   {"range", json::array({0, w})},
                                   {"padding", 0.04}},
                                  {{"name", "y"},
                                   {"type", "band"},
                                   {"domain", o.y_order},
                                   {"range", json::array({h, 0})},
                                   {"padding", 0.04}},
                                  color})},
          {"legends", json::array({{{"fill", "color"},
                                    {"title", o.legend_title},
                                    {"type", "gradient"},
                                    {"gradientLength", 120}}})},
          {"marks", json::array({panel})}};
}

}  // namespace slicelab
