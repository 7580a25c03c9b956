#include "cli/diff_command.h"

#include <cstdio>

#include "cli/input_paths.h"
#include "reports/results_diff.h"

namespace slicelab {

DiffCommand::DiffCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "diff",
      "Two results folders (before and after a change) side by side: every metric with its "
      "change, and whether it is beyond seed noise");
  cmd_->add_option("A", a_, "Results folder before (compare or run output)")
      ->required()
      ->check(existing_input_folder());
  cmd_->add_option("B", b_, "Results folder after")->required()->check(existing_input_folder());
  cmd_->add_option("--out", out_, "Also write diff.md, diff.html and diff.json into this folder");
  add_format_option(*cmd_, format_);
  cmd_->add_flag("--wide", wide_, "List every figure, not only those that changed");
  cmd_->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
  cmd_->add_flag("--force", force_,
                 "Replace the --out folder even if files were added to it (only a folder "
                 "slicelab wrote; docs/results-format.md)");
}

int DiffCommand::run() const {
  const ResultsDiff d = diff_results(a_, b_);
  if (!out_.empty()) write_diff(out_, d, force_);
  if (format_.json()) {  // -q silences the table, never the document asked for
    std::printf("%s\n", diff_json(d).dump(2).c_str());
    return 0;
  }
  if (quiet_) return 0;
  std::fputs(diff_table(d, wide_).c_str(), stdout);
  if (!out_.empty()) std::printf("\nwrote %s/{diff.md,diff.html,diff.json}\n", out_.c_str());
  return 0;
}

}  // namespace slicelab
