// `slicelab kernels <overhead|isolation|colocation>`: runs the CUDA micro-kernels as processes
// and writes what they measured (JSON; the co-location CSV). Exits 3 when there is no GPU.
// `slicelab kernels report`: scripts/gpu-check's raw folder as its report folder (no GPU needed).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/output_format.h"

namespace slicelab {

inline constexpr int kExitNoGpu = 3;

class KernelsCommand {
 public:
  explicit KernelsCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App *overhead_, *isolation_, *colocation_, *list_, *report_;
  std::string kernel_binary_, interposer_, mps_control_, mps_dir_, nvml_library_, work_dir_, out_;
  unsigned gpu_ = 0;
  std::vector<std::string> kernels_;
  int repetitions_ = 7;
  long units_ = 0;
  std::string kernel_ = "fma";
  double scale_ = 1;
  std::string raw_;     // report: the raw folder
  bool force_ = false;  // report: replace a results folder with files added to it
  std::vector<double> shares_{0.3, 0.7};
  std::vector<std::string> mechanisms_;
  bool no_memory_test_ = false;
  double duration_s_ = 5;
  std::vector<std::string> caps_{"0.5:0.5"};
  OutputFormat format_;  // list and colocation; overhead and isolation always print JSON
};

}  // namespace slicelab
