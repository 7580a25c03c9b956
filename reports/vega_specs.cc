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

}  // namespace

json bar_chart_spec(std::span<const BarRow> rows, const BarOptions& o) {
  json values = json::array();
  // Each label's bar end in one pass (a pass per label was quadratic in the entries).
  std::vector<std::string> labels;
  std::unordered_map<std::string, double> ends;
  double max_end = 0;
  for (const BarRow& r : rows) {
    values.push_back({{"label", r.label}, {"color", r.color}, {"value", tidy(r.value)}});
    const auto [at, fresh] = ends.try_emplace(r.label, 0.0);
    if (fresh) labels.push_back(r.label);
    double& end = at->second;
    end = o.stacked ? end + r.value : std::max(end, r.value);
  }
  for (const auto& [label, end] : ends) max_end = std::max(max_end, end);
  json table = {{"name", "table"}, {"values", values}};
  // Stacked or not, every bar runs from v0 to v1, so one mark draws both kinds.
  if (o.stacked)
    table["transform"] = json::array(
        {{{"type", "stack"}, {"groupby", {"label"}}, {"field", "value"}, {"as", {"v0", "v1"}}}});
  else
    table["transform"] =
        json::array({{{"type", "formula"}, {"expr", "0"}, {"as", "v0"}},
                     {{"type", "formula"}, {"expr", "datum.value"}, {"as", "v1"}}});
  json x_scale = {
      {"name", "x"},      {"type", "linear"}, {"domain", {0, max_end > 0 ? max_end : 1}},
      {"range", "width"}, {"nice", true},     {"zero", true}};
  json spec = {{"width", kWidth},
               {"height", std::max<size_t>(labels.size(), 1) * 24},
               {"padding", 5},
               {"title", title_of(o.title)},
               {"data", json::array({table})},
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
               {"axes", json::array({{{"orient", "bottom"},
                                      {"scale", "x"},
                                      {"title", o.x_title},
                                      {"format", o.format},
                                      {"grid", true},
                                      {"tickCount", 5}},
                                     {{"orient", "left"}, {"scale", "y"}, {"labelLimit", 160}}})}};
  json encode = {{"y", {{"scale", "y"}, {"field", "label"}}},
                 {"height", {{"scale", "y"}, {"band", 1}}},
                 {"x", {{"scale", "x"}, {"field", "v0"}}},
                 {"x2", {{"scale", "x"}, {"field", "v1"}}},
                 {"fill", {{"scale", "color"}, {"field", "color"}}},
                 {"tooltip",
                  {{"signal", "datum.label + ' ' + datum.color + ': ' +" +
                                  format_signal("value", o.format)}}}};
  json marks = json::array({{{"type", "rect"},
                             {"name", "bars"},
                             {"from", {{"data", "table"}}},
                             {"encode", {{"enter", encode}}}}});
  if (!o.stacked)  // the value at the end of each bar, so the reader needs no axis lookup
    marks.push_back({{"type", "text"},
                     {"from", {{"data", "table"}}},
                     {"encode",
                      {{"enter",
                        {{"x", {{"scale", "x"}, {"field", "v1"}, {"offset", 4}}},
                         {"y", {{"scale", "y"}, {"field", "label"}, {"band", 0.5}}},
                         {"baseline", {{"value", "middle"}}},
                         {"fontSize", {{"value", 10}}},
                         {"fill", {{"value", "#333"}}},
                         {"text", {{"signal", format_signal("value", o.format)}}}}}}}});
  spec["marks"] = marks;
  if (!o.legend_title.empty())
    // Offset past the value labels that stick out right of the longest bar.
    spec["legends"] = json::array(
        {{{"fill", "color"}, {"title", o.legend_title}, {"offset", o.stacked ? 18 : 44}}});
  return spec;
}

json line_chart_spec(std::span<const XYRow> rows, const LineOptions& o) {
  json values = json::array();
  for (const XYRow& r : rows)
    values.push_back({{"series", r.series}, {"x", tidy(r.x)}, {"y", tidy(r.y)}});
  json points = json::array();
  for (const XYRow& r : o.points)
    points.push_back(
        {{"series", r.series}, {"x", tidy(r.x)}, {"y", tidy(r.y)}, {"meets", r.filled}});
  // Only data sets with rows take part in the domains: an empty one makes Vega warn about an
  // infinite extent. Domains span lines, points and the target line, so nothing is cut off.
  json data = json::array();
  json x_fields = json::array(), y_fields = json::array(), series_fields = json::array();
  for (const auto& [name, rows_of] : {std::pair{"table", &values}, std::pair{"points", &points}}) {
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
  json x_scale = {{"name", "x"},
                  {"type", o.x_scale},
                  {"domain", {{"fields", x_fields}}},
                  {"range", "width"},
                  {"zero", false}};
  if (o.x_scale == "linear") x_scale["nice"] = true;
  if (o.x_scale == "symlog") x_scale["constant"] = tidy(o.symlog_constant);
  json y_scale = {{"name", "y"},       {"type", "linear"}, {"domain", {{"fields", y_fields}}},
                  {"range", "height"}, {"nice", true},     {"zero", true}};
  if (o.y_max) y_scale["domainMax"] = *o.y_max;
  json series_domain = {{"fields", series_fields}};
  json line = {{"type", "line"},
               {"from", {{"data", "faceted"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "x"}}},
                   {"y", {{"scale", "y"}, {"field", "y"}}},
                   {"stroke", {{"scale", "color"}, {"field", "series"}}},
                   {"strokeWidth", {{"value", 2}}},
                   {"interpolate", {{"value", o.step ? "step-after" : "linear"}}}}}}}};
  json marks = json::array(
      {{{"type", "group"},
        {"from", {{"facet", {{"name", "faceted"}, {"data", "table"}, {"groupby", "series"}}}}},
        {"marks", json::array({line})}}});
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
              {{"signal", "datum.series + ': ' + format(datum.x, ',') + ' GPUs -> ' + " +
                              format_signal("y", o.y_format) +
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
  json x_axis = {{"orient", "bottom"},   {"scale", "x"},   {"title", o.x_title},
                 {"format", o.x_format}, {"tickCount", 6}, {"grid", true}};
  if (!o.x_ticks.empty()) {
    json ticks = json::array();
    for (const double t : o.x_ticks) ticks.push_back(tidy(t));
    x_axis["values"] = ticks;
  }
  if (!o.x_label_expr.empty())  // Vega (unlike Vega-Lite) sets label text through encode
    x_axis["encode"] = {{"labels", {{"update", {{"text", {{"signal", o.x_label_expr}}}}}}}};
  json spec = {{"width", kWidth},
               {"height", 220},
               {"padding", 5},
               {"title", title_of(o.title)},
               {"data", data},
               {"scales", json::array({x_scale,
                                       y_scale,
                                       {{"name", "color"},
                                        {"type", "ordinal"},
                                        {"domain", series_domain},
                                        {"range", "category"}}})},
               {"axes", json::array({x_axis,
                                     {{"orient", "left"},
                                      {"scale", "y"},
                                      {"title", o.y_title},
                                      {"format", o.y_format},
                                      {"tickCount", 5},
                                      {"grid", true}}})},
               {"legends", json::array({{{"stroke", "color"}, {"title", o.legend_title}}})},
               {"marks", marks}};
  return spec;
}

}  // namespace slicelab
