// report.md: the report's text and tables in GitHub-flavoured Markdown, readable without the
// charts (which only report.html draws; each section names its charts there).
#pragma once

#include <string>

#include "reports/report_content.h"

namespace slicelab {

std::string report_markdown(const Report& report);

// A Markdown table (cells escaped: '|' and line breaks); numbers right-aligned.
std::string markdown_table(const ReportTable& table);

}  // namespace slicelab
