#include "cli/calibrate_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "reports/output_file.h"
#include "sim/interference/builtin_calibration.h"
#include "sim/interference/calibration_fit.h"
#include "workloads/input_error.h"

namespace slicelab {

CalibrateCommand::CalibrateCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("calibrate",
                            "Fit the interference model to measured co-location runs (CSV)");
  cmd_->add_option("measurements", measurements_,
                   "CSV: class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b")
      ->required()
      ->check(CLI::ExistingFile);
  cmd_->add_option("-o,--out", out_, "Calibration YAML to write")->required();
  cmd_->add_option("--classes", classes_,
                   "Calibration YAML whose classes: give the demand vectors (default: built-in, "
                   "as calibration/default.yaml)")
      ->check(CLI::ExistingFile);
  cmd_->add_option("--source", source_, "Where the measurements come from (written as source:)");
}

int CalibrateCommand::run() const {
  const Calibration prior = classes_.empty() ? builtin_calibration() : load_calibration(classes_);
  const auto rows = read_measurements_csv(measurements_);
  const std::string source = source_.empty()
                                 ? fmt::format("fitted by slicelab calibrate from {} ({} runs)",
                                               measurements_, rows.size())
                                 : source_;
  Calibration fit = fit_calibration(rows, prior.classes, measurements_, source);
  fit.interposer_launch_overhead_ns = prior.interposer_launch_overhead_ns;
  std::printf("%-11s %6s %12s %12s %12s %12s\n", "mode", "obs", "a_bandwidth", "b_launch",
              "rms resid", "max resid");
  for (const auto& [mode, q] : fit.fit) {
    const InterferenceCoefficients k = fit.for_mode(mode);
    std::printf("%-11s %6zu %12.6g %12.6g %12.6g %12.6g\n", mode.c_str(), q.observations,
                k.bandwidth, k.launch, q.rms, q.max);
  }
  const std::string inputs[] = {measurements_, classes_};
  write_output_file(out_,
                    "# Written by `slicelab calibrate " + measurements_ +
                        "`: least-squares fit of docs/sharing-models.md's model.\n" +
                        calibration_yaml(fit),
                    inputs);
  std::printf("wrote %s\n", out_.c_str());
  return 0;
}

}  // namespace slicelab
