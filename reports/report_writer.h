// `slicelab report`: reads a results folder and writes report.md and report.html into it.
#pragma once

#include <filesystem>
#include <string>

namespace slicelab {

struct ReportFiles {
  std::filesystem::path markdown, html;
  size_t charts = 0;
};

// Writes `dir`/report.md, then `dir`/report.html (each through a temporary file renamed into
// place, so a failure leaves no half-written report). Vega comes from find_vega_dir(); when it
// is missing report.md is still written and the error says what to install. Only into a folder
// that carries slicelab's marker (OutputRefused otherwise); the marker then lists the reports.
ReportFiles write_report(const std::filesystem::path& dir);

}  // namespace slicelab
