// report.html: one self-contained page (Vega inlined, chart data embedded) that opens offline.
// Once every chart has rendered, <body> gets data-charts-rendered="N"; errors, console errors
// and Vega warnings are collected in <pre id="report-errors"> for the browser test to read.
#pragma once

#include <string>
#include <string_view>

#include "reports/report_content.h"

namespace slicelab {

// `vega_js` is the script that defines the global `vega` (see vega_bundle.h).
std::string report_html(const Report& report, std::string_view vega_js);

std::string html_escape(std::string_view text);

}  // namespace slicelab
