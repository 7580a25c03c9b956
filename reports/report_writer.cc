#include "reports/report_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "reports/json_file.h"
#include "reports/output_guard.h"
#include "reports/report_content.h"
#include "reports/report_data.h"
#include "reports/report_html.h"
#include "reports/report_markdown.h"
#include "reports/sweep_report.h"
#include "reports/vega_bundle.h"

namespace slicelab {
namespace {

// Writes `p` in the results folder `dir` and adds it to the folder's marker, so that the next
// run may replace the folder with the report in it. The temporary file's name carries the tag
// that check_output_folder recognises as slicelab's own.
void write_replacing(const std::filesystem::path& dir, const std::filesystem::path& p,
                     const std::string& content) {
  replace_file_via_temp(p, content);
  std::vector<std::string> entries = read_results_marker(dir).value_or(std::vector<std::string>{});
  const std::string name = p.filename().string();
  if (std::find(entries.begin(), entries.end(), name) == entries.end()) {
    entries.push_back(name);
    std::sort(entries.begin(), entries.end());
    write_results_marker(dir, entries);
  }
}

}  // namespace

ReportFiles write_report(const std::filesystem::path& dir) {
  check_results_folder_to_add_to(dir.string());
  const Report report = [&] {
    try {
      if (is_sweep_folder(dir)) return build_sweep_report(dir);
      return build_report(load_report_data(dir));
    } catch (const nlohmann::json::exception& e) {
      // A summary.json or plan.json of the right shape but with a value of the wrong type.
      throw json_content_error(dir.string(), e);
    }
  }();
  ReportFiles files{dir / "report.md", dir / "report.html", report.chart_count()};
  // A report file the marker does not list is someone else's: it is not overwritten.
  const std::vector<std::string> listed =
      read_results_marker(dir).value_or(std::vector<std::string>{});
  for (const std::filesystem::path& p : {files.markdown, files.html}) {
    std::error_code ec;
    if (std::filesystem::symlink_status(p, ec).type() != std::filesystem::file_type::not_found &&
        std::find(listed.begin(), listed.end(), p.filename().string()) == listed.end())
      throw OutputRefused(fmt::format(
          "{}: was not written by slicelab, so the report does not replace it; move it elsewhere",
          p.string()));
  }
  write_replacing(dir, files.markdown, report_markdown(report));
  write_replacing(dir, files.html, report_html(report, vega_bundle_js(find_vega_dir())));
  return files;
}

}  // namespace slicelab
