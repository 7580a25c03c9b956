// `slicelab diff A[:policy] B[:policy]`: two results folders or policies side by side with a
// verdict per figure (reports/results_diff.h), printed as a table or JSON, with --out written as
// diff.md, diff.html and diff.json, and --fail-if turning a worse figure into exit code 4.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/output_format.h"

namespace slicelab {

// A --fail-if condition held (a figure got worse beyond noise).
inline constexpr int kExitFailIf = 4;

class DiffCommand {
 public:
  explicit DiffCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  std::string a_, b_, out_, seeds_, fail_if_;
  OutputFormat format_;
  bool wide_ = false, force_ = false, quiet_ = false;
};

}  // namespace slicelab
