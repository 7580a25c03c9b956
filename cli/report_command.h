// `slicelab report <results folder>`: writes report.md and report.html from the files a
// compare, run or plan left there; also used by `compare --report` right after the results.
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
  std::string dir_;
  bool quiet_ = false;
  OutputFormat format_;  // --format json: where the report went, as one document
};

// Writes the report of `dir` and, unless `quiet`, prints where it went.
void write_report_and_say(const std::string& dir, bool quiet);

}  // namespace slicelab
