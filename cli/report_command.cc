#include "cli/report_command.h"

#include <cstdio>

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
      ->check(CLI::ExistingDirectory);
  cmd_->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
}

int ReportCommand::run() const {
  write_report_and_say(dir_, quiet_);
  return 0;
}

void write_report_and_say(const std::string& dir, bool quiet) {
  const ReportFiles f = write_report(dir);
  if (!quiet)
    std::printf("wrote %s and %s (%zu charts)\n", f.markdown.string().c_str(),
                f.html.string().c_str(), f.charts);
}

}  // namespace slicelab
