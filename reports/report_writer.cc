#include "reports/report_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "reports/json_file.h"
#include "reports/report_content.h"
#include "reports/report_data.h"
#include "reports/report_html.h"
#include "reports/report_markdown.h"
#include "reports/vega_bundle.h"

namespace slicelab {
namespace {

void write_replacing(const std::filesystem::path& p, const std::string& content) {
  const std::filesystem::path tmp = p.string() + fmt::format(".tmp-{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    if (!out) {
      std::filesystem::remove(tmp);
      throw std::runtime_error(fmt::format("cannot write {}", p.string()));
    }
  }
  std::filesystem::rename(tmp, p);
}

}  // namespace

ReportFiles write_report(const std::filesystem::path& dir) {
  const Report report = [&] {
    try {
      return build_report(load_report_data(dir));
    } catch (const nlohmann::json::exception& e) {
      // A summary.json or plan.json of the right shape but with a value of the wrong type.
      throw json_content_error(dir.string(), e);
    }
  }();
  ReportFiles files{dir / "report.md", dir / "report.html", report.chart_count()};
  write_replacing(files.markdown, report_markdown(report));
  write_replacing(files.html, report_html(report, vega_bundle_js(find_vega_dir())));
  return files;
}

}  // namespace slicelab
