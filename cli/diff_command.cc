#include "cli/diff_command.h"

#include <cstdio>

#include "cli/usage_error.h"
#include "reports/diff_fail_if.h"
#include "reports/results_diff.h"
#include "sim/scenario/replications.h"

namespace slicelab {

DiffCommand::DiffCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "diff",
      "Two results folders (before and after a change) or two policies side by side: every "
      "metric with its change and a verdict (better, worse, within noise) from the seeds' noise");
  cmd_->add_option("A", a_,
                   "Results folder before (compare or run output); FOLDER:POLICY compares that "
                   "policy")
      ->required();
  cmd_->add_option("B", b_, "Results folder after; FOLDER:POLICY as for A")->required();
  cmd_->add_option("--seeds", seeds_,
                   "Compare only these seeds (1,2,3), or each side's first N; a side lacking one "
                   "is an error");
  cmd_->add_option("--fail-if", fail_if_,
                   "worse:METRIC[,worse:METRIC...]: exit 4 when such a figure got worse beyond "
                   "noise (METRIC as decide: names it, e.g. queue_p99, completed)");
  cmd_->add_option("--out", out_, "Also write diff.md, diff.html and diff.json into this folder");
  add_format_option(*cmd_, format_);
  cmd_->add_flag("--wide", wide_, "List every figure, not only those that changed");
  cmd_->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
  cmd_->add_flag("--force", force_,
                 "Replace the --out folder even if files were added to it (only a folder "
                 "slicelab wrote; docs/results-format.md)");
}

int DiffCommand::run() const {
  std::string why;
  std::optional<SeedsOption> seeds;
  if (!seeds_.empty()) {
    seeds = parse_seeds_option(seeds_, why);
    if (!seeds) throw UsageError("--seeds: " + why);
  }
  std::vector<FailCondition> conditions;
  if (!fail_if_.empty()) {
    const auto parsed = parse_fail_if(fail_if_, why);
    if (!parsed) throw UsageError("--fail-if: " + why);
    conditions = *parsed;
  }
  const ResultsDiff d = diff_results(parse_diff_side(a_), parse_diff_side(b_), seeds);
  if (!quiet_)  // -q prints nothing but errors
    for (const std::string& w : d.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!out_.empty()) write_diff(out_, d, force_);
  if (format_.json()) {  // -q silences the table, never the document asked for
    std::printf("%s\n", diff_json(d).dump(2).c_str());
  } else if (!quiet_) {
    std::fputs(diff_table(d, wide_).c_str(), stdout);
    if (!out_.empty()) std::printf("\nwrote %s/{diff.md,diff.html,diff.json}\n", out_.c_str());
  }
  if (conditions.empty()) return 0;
  if (!d.noise_known() && !quiet_)
    std::fputs(
        "note: --fail-if: one seed on each side, noise unknown: no figure can be worse beyond "
        "noise, so this diff never fails (compare with seeds: on both sides)\n",
        stderr);
  const std::vector<std::string> held = failed_conditions(d, conditions);
  for (const std::string& h : held) std::fprintf(stderr, "--fail-if %s\n", h.c_str());
  return held.empty() ? 0 : kExitFailIf;
}

}  // namespace slicelab
