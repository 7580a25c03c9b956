#include "cli/report_command.h"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "cli/input_paths.h"
#include "reports/report_writer.h"

namespace slicelab {

ReportCommand::ReportCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "report",
      "Write report.md and a self-contained report.html (tables and charts) into a results "
      "folder");
  cmd_->add_option("folder", dir_,
                   "Results folder written by compare, run or plan (e.g. results/quickstart)")
      ->required()
      ->check(existing_input_folder());
  cmd_->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
  add_format_option(*cmd_, format_);
}

int ReportCommand::run() const {
  if (!format_.json()) {
    write_report_and_say(dir_, quiet_);
    return 0;
  }
  const ReportFiles f = write_report(dir_);
  const nlohmann::ordered_json doc = {{"format", "slicelab.report/1"},
                                      {"markdown", f.markdown.string()},
                                      {"html", f.html.string()},
                                      {"charts", f.charts}};
  std::printf("%s\n", doc.dump(2).c_str());
  return 0;
}

void write_report_and_say(const std::string& dir, bool quiet) {
  const ReportFiles f = write_report(dir);
  if (!quiet)
    std::printf("wrote %s and %s (%zu charts)\n", f.markdown.string().c_str(),
                f.html.string().c_str(), f.charts);
}

}  // namespace slicelab
