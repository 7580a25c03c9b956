#include "reports/report_markdown.h"

#include <fmt/format.h>

#include <cctype>

namespace slicelab {
namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// A column is numeric when every cell starts like a figure: right-align it.
bool numeric_column(const ReportTable& t, size_t c) {
  for (const auto& row : t.rows) {
    if (c >= row.size() || row[c].empty()) continue;
    const unsigned char first = static_cast<unsigned char>(row[c][0]);
    if (!std::isdigit(first) && row[c] != "-" && first != '-') return false;
  }
  return !t.rows.empty() && c > 0;
}

}  // namespace

std::string markdown_table(const ReportTable& t) {
  std::string out = "|";
  for (const auto& h : t.head) out += " " + cell(h) + " |";
  out += "\n|";
  for (size_t c = 0; c < t.head.size(); ++c) out += numeric_column(t, c) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (size_t c = 0; c < t.head.size(); ++c)
      out += " " + cell(c < row.size() ? row[c] : "") + " |";
    out += "\n";
  }
  return out;
}

std::string report_markdown(const Report& r) {
  std::string out = fmt::format("# {}\n\n", r.title);
  for (const auto& line : r.intro) out += line + "\n\n";
  for (const ReportSection& s : r.sections) {
    out += fmt::format("## {}\n\n", s.title);
    for (const auto& p : s.paragraphs) out += p + "\n\n";
    for (const ReportTable& t : s.tables) {
      out += fmt::format("### {}\n\n", t.title);
      if (!t.note.empty()) out += t.note + "\n\n";
      out += markdown_table(t) + "\n";
    }
    if (!s.charts.empty()) {
      out += "Charts in report.html:";
      for (size_t i = 0; i < s.charts.size(); ++i)
        out += fmt::format("{} {}", i ? ";" : "", s.charts[i].title);
      out += ".\n\n";
    }
  }
  return out;
}

}  // namespace slicelab
