// A report as data, before it becomes Markdown or HTML: sections in reading order, each with
// its tables (shown in both formats) and its Vega charts (HTML only).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/report_data.h"

namespace slicelab {

struct ReportTable {
  std::string title;
  std::string note;  // one sentence under the title (what the figures mean), may be empty
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};

struct ReportChart {
  std::string title;
  nlohmann::json spec;  // a complete Vega 5 specification with its data inlined
  // Under the chart: what its error bars span and the caveats its bars carry (may be empty).
  std::string note = {};
};

struct ReportSection {
  std::string title;
  std::vector<std::string> paragraphs;  // plain text
  std::vector<ReportTable> tables;
  std::vector<ReportChart> charts;
};

struct Report {
  std::string title;
  std::vector<std::string> intro;  // plain text lines under the title
  std::vector<ReportSection> sections;
  size_t chart_count() const;
};

// Series longer than this are thinned before they go into a chart (report.html stays small).
inline constexpr size_t kMaxChartPoints = 500;

// The whole report of one results folder. Sections without data are left out.
Report build_report(const ReportData& data);

// Parts of build_report, one per file: the tables and text, and the charts of each section.
void add_tables(const ReportData& data, Report& report);
void add_charts(const ReportData& data, Report& report);

// The section named `title`, appended (in call order) when new.
ReportSection& section(Report& report, const std::string& title);

}  // namespace slicelab
