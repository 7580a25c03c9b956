// `slicelab report <results folder>`: writes report.md and report.html from the files a
// compare, run or plan left there; also used by `compare --report` right after the results. On a
// recording folder of `serve extender --shadow --record`, prints the shadow comparison instead.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/output_format.h"

namespace slicelab {

class ReportCommand {
 public:
  // Registers `report` on `app`.
  explicit ReportCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  int run_shadow() const;
  std::string dir_;
  std::string pending_after_;  // a recording folder's threshold (a Go duration)
  bool quiet_ = false;
  OutputFormat format_;  // --format json: where the report went, as one document
};

// Writes the report of `dir` and, unless `quiet`, prints where it went.
void write_report_and_say(const std::string& dir, bool quiet);

}  // namespace slicelab
