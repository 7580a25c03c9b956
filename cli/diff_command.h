// `slicelab diff A B`: two results folders side by side (reports/results_diff.h), printed as a
// table or JSON, and with --out written as diff.md, diff.html and diff.json.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/output_format.h"

namespace slicelab {

class DiffCommand {
 public:
  explicit DiffCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  std::string a_, b_, out_;
  OutputFormat format_;
  bool wide_ = false, force_ = false, quiet_ = false;
};

}  // namespace slicelab
