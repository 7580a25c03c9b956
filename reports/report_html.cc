#include "reports/report_html.h"

#include <fmt/format.h>

#include <cctype>

namespace slicelab {
namespace {

constexpr std::string_view kStyle = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       margin: 0 auto; padding: 16px 24px 48px; max-width: 1240px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 4px; }
p.intro, p.note { color: #555; margin: 2px 0 8px; }
p.recommendation { font-size: 15px; background: #eef6ee; border-left: 4px solid #4c9a4c;
                   padding: 6px 10px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 12.5px; margin-bottom: 8px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { background: #f4f4f4; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 28px; margin-top: 10px; }
.chart { min-height: 40px; }
figure.chart-box { margin: 0; max-width: 560px; }
figcaption.note { color: #555; font-size: 12.5px; margin: 2px 0 0; }
#report-errors { color: #b00; white-space: pre-wrap; }
)";

// Runs every chart, then reports on <body>: data-charts-rendered (views that ran) and
// data-chart-errors (messages in #report-errors). Console errors and Vega warnings count as
// errors so that a chart that silently draws nothing fails the browser test.
constexpr std::string_view kRunner = R"(
(function () {
  var box = document.getElementById('report-errors');
  var errors = 0;
  function fail(message) {
    errors += 1;
    box.hidden = false;
    box.textContent += message + '\n';
    document.body.setAttribute('data-chart-errors', String(errors));
  }
  window.addEventListener('error', function (e) { fail('error: ' + e.message); });
  window.addEventListener('unhandledrejection', function (e) { fail('error: ' + e.reason); });
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      fail('console.' + level + ': ' + Array.prototype.slice.call(arguments).join(' '));
      return original.apply(console, arguments);
    };
  });
  document.body.setAttribute('data-chart-errors', '0');
  var specs = JSON.parse(document.getElementById('chart-specs').textContent);
  var rendered = 0;
  var runs = specs.map(function (chart) {
    try {
      var view = new vega.View(vega.parse(chart.spec),
                               {renderer: 'svg', container: '#' + chart.id, hover: true});
      view.logLevel(vega.Warn);
      return view.runAsync().then(function () { rendered += 1; },
                                  function (e) { fail(chart.id + ': ' + e); });
    } catch (e) {
      fail(chart.id + ': ' + e);
      return Promise.resolve();
    }
  });
  Promise.all(runs).then(function () {
    document.body.setAttribute('data-charts-rendered', String(rendered));
  });
})();
)";

// JSON inside <script>: '<' as \u003c, so no "</script>" or "<!--" can end or confuse it.
std::string script_json(const nlohmann::json& j) {
  const std::string text = j.dump();
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

bool numeric_cell(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s == "-" ||
                        (s[0] == '-' && s.size() > 1));
}

std::string table_html(const ReportTable& t) {
  std::string out = fmt::format("<h3>{}</h3>\n", html_escape(t.title));
  if (!t.note.empty()) out += fmt::format("<p class=\"note\">{}</p>\n", html_escape(t.note));
  out += "<div class=\"table-wrap\"><table>\n<thead><tr>";
  for (const auto& h : t.head) out += fmt::format("<th>{}</th>", html_escape(h));
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c)
      out += fmt::format("<td{}>{}</td>", c > 0 && numeric_cell(row[c]) ? " class=\"num\"" : "",
                         html_escape(row[c]));
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string report_html(const Report& r, std::string_view vega_js) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n<script>\n",
      html_escape(r.title), kStyle);
  out += vega_js;
  out += fmt::format("</script>\n</head>\n<body data-charts-expected=\"{}\">\n<h1>{}</h1>\n",
                     r.chart_count(), html_escape(r.title));
  for (const auto& line : r.intro) {
    const bool rec = line.rfind("Recommendation:", 0) == 0;
    out += fmt::format("<p class=\"{}\">{}</p>\n", rec ? "recommendation" : "intro",
                       html_escape(line));
  }
  nlohmann::json specs = nlohmann::json::array();
  size_t n = 0;
  for (const ReportSection& s : r.sections) {
    out += fmt::format("<h2>{}</h2>\n", html_escape(s.title));
    for (const auto& p : s.paragraphs) {
      const bool rec = p.rfind("Recommendation:", 0) == 0;
      out +=
          fmt::format("<p class=\"{}\">{}</p>\n", rec ? "recommendation" : "intro", html_escape(p));
    }
    for (const ReportTable& t : s.tables) out += table_html(t);
    if (s.charts.empty()) continue;
    out += "<div class=\"charts\">\n";
    for (const ReportChart& c : s.charts) {
      const std::string id = fmt::format("chart-{}", ++n);
      const std::string div = fmt::format("<div class=\"chart\" id=\"{}\" title=\"{}\"></div>", id,
                                          html_escape(c.title));
      // A chart with a note sits in a figure with the note as its caption, below the chart.
      if (c.note.empty())
        out += div + "\n";
      else
        out += fmt::format(
            "<figure class=\"chart-box\">{}<figcaption class=\"note\">{}</figcaption>"
            "</figure>\n",
            div, html_escape(c.note));
      specs.push_back({{"id", id}, {"spec", c.spec}});
    }
    out += "</div>\n";
  }
  out += "<pre id=\"report-errors\" hidden></pre>\n";
  out += "<script type=\"application/json\" id=\"chart-specs\">" + script_json(specs) +
         "</script>\n<script>";
  out += kRunner;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace slicelab
