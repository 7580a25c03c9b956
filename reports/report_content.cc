#include "reports/report_content.h"

#include <algorithm>
#include <array>

namespace slicelab {

size_t Report::chart_count() const {
  size_t n = 0;
  for (const ReportSection& s : sections) n += s.charts.size();
  return n;
}

ReportSection& section(Report& report, const std::string& title) {
  for (ReportSection& s : report.sections)
    if (s.title == title) return s;
  report.sections.push_back({});
  report.sections.back().title = title;
  return report.sections.back();
}

Report build_report(const ReportData& data) {
  Report report;
  // Reading order: what was compared, the plan's answer, then the detail behind it.
  for (const char* title :
       {"Summary", "Capacity plan", "Sizes evaluated", "Headline metrics", "Queueing delay and JCT",
        "Over time", "Per GPU model", "Failures", "Isolation", "Fill experiment", "Other figures"})
    section(report, title);
  add_tables(data, report);
  add_charts(data, report);
  auto& s = report.sections;
  s.erase(std::remove_if(s.begin(), s.end(),
                         [](const ReportSection& x) {
                           return x.paragraphs.empty() && x.tables.empty() && x.charts.empty();
                         }),
          s.end());
  return report;
}

}  // namespace slicelab
