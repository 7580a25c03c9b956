// `slicelab calibrate`: fits the interference model's coefficients to measured co-location runs
// and writes a calibration YAML, printing the fit's residuals per mode and what the data cannot
// support (refusing to write when it cannot support the model at all, unless --force).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/output_format.h"

namespace slicelab {

class CalibrateCommand {
 public:
  explicit CalibrateCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  // Bad input throws InputError ("file:line: ...").
  int run() const;

 private:
  CLI::App* cmd_;
  std::string measurements_;
  std::string out_;
  std::string classes_;
  std::string source_;
  bool force_ = false;
  OutputFormat format_;
};

}  // namespace slicelab
