#include "cli/report_command.h"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "cli/input_paths.h"
#include "cli/usage_error.h"
#include "reports/report_writer.h"
#include "reports/shadow_comparison.h"
#include "reports/shadow_record_reader.h"
#include "workloads/go_duration.h"

namespace slicelab {

ReportCommand::ReportCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "report",
      "Write report.md and a self-contained report.html (tables and charts) into a results "
      "folder; for a recording folder of serve extender --shadow --record, print the cluster's "
      "placements against slicelab's");
  cmd_->add_option("folder", dir_,
                   "Results folder written by compare, run or plan (e.g. results/quickstart), or "
                   "a recording folder (recording.json)")
      ->required()
      ->check(existing_input_folder());
  cmd_->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
  cmd_->add_option("--pending-after", pending_after_,
                   "Recording folder: a pod slicelab placed counts as placeable but pending when "
                   "the cluster left it pending longer than this (a duration, default 1m)");
  add_format_option(*cmd_, format_);
}

int ReportCommand::run() const {
  if (is_recording_folder(dir_)) return run_shadow();
  if (!pending_after_.empty())
    throw UsageError("--pending-after is for a recording folder (" + dir_ +
                     " has no recording.json)");
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

int ReportCommand::run_shadow() const {
  double pending_after_s = 60;
  if (!pending_after_.empty()) {
    std::string error;
    const auto d = parse_go_duration(pending_after_, error);
    if (!d || *d < 0)
      throw UsageError("--pending-after: expected a duration such as 90s or 5m, found '" +
                       pending_after_ + "'" + (error.empty() ? "" : ": " + error));
    pending_after_s = *d;
  }
  const ShadowComparison c = compare_shadow(read_shadow_record(dir_), pending_after_s);
  if (format_.json()) {
    std::printf("%s\n", shadow_comparison_json(c).dump(2).c_str());
  } else if (!quiet_) {
    std::fputs(shadow_comparison_text(c).c_str(), stdout);
  }
  return 0;
}

void write_report_and_say(const std::string& dir, bool quiet) {
  const ReportFiles f = write_report(dir);
  if (!quiet)
    std::printf("wrote %s and %s (%zu charts)\n", f.markdown.string().c_str(),
                f.html.string().c_str(), f.charts);
}

}  // namespace slicelab
