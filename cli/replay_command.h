// `slicelab replay --backend local scenario.yaml`: runs the scenario's pods as real processes
// on this machine's GPUs (backends/local) and writes results in the simulator's format.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/output_format.h"

#include <string>

namespace slicelab {

class ReplayCommand {
 public:
  explicit ReplayCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  std::string scenario_, backend_ = "local", policy_, out_, mechanism_, kernel_binary_, command_,
                         default_kernel_ = "fma", interposer_, mps_control_, nvml_library_,
                         nvidia_smi_;
  double time_scale_ = 1.0, timeout_factor_ = 2.0, timeout_grace_s_ = 10.0;
  bool allow_mig_reconfigure_ = false, quiet_ = false, force_ = false, wide_ = false;
  OutputFormat format_;
};

}  // namespace slicelab
