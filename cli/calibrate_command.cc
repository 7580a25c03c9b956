#include "cli/calibrate_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>

#include "cli/input_paths.h"
#include "reports/output_file.h"
#include "reports/output_guard.h"
#include "sim/calibration/calibration_fit.h"
#include "sim/interference/builtin_calibration.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

// `text` for a comment line: a control character (a line break in a file name) would end the
// comment and put the rest into the YAML.
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

}  // namespace

CalibrateCommand::CalibrateCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("calibrate",
                            "Fit the interference model to measured co-location runs (CSV)");
  cmd_->add_option("measurements", measurements_,
                   "CSV: class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b")
      ->required()
      ->check(existing_input_file());
  cmd_->add_option("-o,--out", out_, "Calibration YAML to write")->required();
  cmd_->add_option("--classes", classes_,
                   "Calibration YAML whose classes: give the demand vectors (default: built-in, "
                   "as calibration/default.yaml)")
      ->check(existing_input_file());
  cmd_->add_option("--source", source_, "Where the measurements come from (written as source:)");
  cmd_->add_flag("--force", force_,
                 "Write the calibration even when the data cannot support the model (the "
                 "reasons are still printed, and written into the file as comments)");
  add_format_option(*cmd_, format_);
}

int CalibrateCommand::run() const {
  const std::string inputs[] = {measurements_, classes_};
  check_own_output_file(out_, inputs);  // a refusal before the fit, not after it
  const Calibration prior = classes_.empty() ? builtin_calibration() : load_calibration(classes_);
  const auto rows = read_measurements_csv(measurements_);
  const std::string source = source_.empty()
                                 ? fmt::format("fitted by slicelab calibrate from {} ({} runs)",
                                               measurements_, rows.size())
                                 : source_;
  CalibrationFit result = fit_calibration(rows, prior.classes, measurements_, source);
  Calibration& fit = result.calibration;
  fit.interposer_launch_overhead_ns = prior.interposer_launch_overhead_ns;
  size_t fitted = 0;
  for (const auto& [mode, q] : fit.fit) fitted += q.rows;
  const size_t skipped = rows.size() - fitted;
  nlohmann::ordered_json doc;
  if (format_.json()) {
    doc["format"] = "slicelab.calibrate/1";
    doc["measurements"] = measurements_;
    doc["rows"] = rows.size();
    doc["skipped_rows"] = skipped;
    nlohmann::ordered_json modes = nlohmann::ordered_json::array();
    for (const auto& [mode, q] : fit.fit) {
      const InterferenceCoefficients k = fit.for_mode(mode);
      modes.push_back({{"mode", mode},
                       {"rows", q.rows},
                       {"observations", q.observations},
                       {"a_bandwidth", k.bandwidth},
                       {"b_launch", k.launch},
                       {"rms_residual", q.rms},
                       {"max_residual", q.max},
                       {"explained", q.explained}});
    }
    doc["modes"] = std::move(modes);
    doc["issues"] = nlohmann::ordered_json::array();
    for (const FitIssue& issue : result.issues)
      doc["issues"].push_back({{"level", issue.refuses ? "error" : "warning"},
                               {"mode", issue.mode},
                               {"text", issue.text}});
  } else {
    std::printf("%-11s %5s %5s %12s %12s %10s %10s %9s\n", "mode", "rows", "obs", "a_bandwidth",
                "b_launch", "rms resid", "max resid", "explained");
    for (const auto& [mode, q] : fit.fit) {
      const InterferenceCoefficients k = fit.for_mode(mode);
      std::printf("%-11s %5zu %5zu %12.6g %12.6g %10.4g %10.4g %8.1f%%\n", mode.c_str(), q.rows,
                  q.observations, k.bandwidth, k.launch, q.rms, q.max, 100 * q.explained);
    }
    if (skipped > 0)
      std::printf("skipped %zu row%s of whole-card or mig (no interference terms)\n", skipped,
                  skipped == 1 ? "" : "s");
  }
  // Loudly, on stderr, after the table (flushed first so that the two interleave in order).
  std::fflush(stdout);
  std::string comments;
  for (const FitIssue& issue : result.issues) {
    const char* level = issue.refuses ? "error" : "warning";
    std::fprintf(stderr, "%s: %s\n", level, issue.text.c_str());
    comments += fmt::format("# {}: {}\n", level, issue.text);
  }
  if (result.refused() && !force_) {
    std::fprintf(stderr,
                 "error: the data cannot support the model: nothing written to %s (--force "
                 "writes it anyway)\n",
                 out_.c_str());
    if (format_.json()) {
      doc["written"] = nullptr;
      std::printf("%s\n", doc.dump(2).c_str());
    }
    return 1;
  }
  // The first line marks the file as slicelab's: a later `calibrate -o` may replace it, and
  // nothing else (reports/output_guard.h).
  write_own_output_file(out_,
                        std::string(kOwnFileLine) + "calibrate " + one_line(measurements_) +
                            ": non-negative least-squares fit of docs/sharing-models.md's "
                            "model. `slicelab calibrate -o` replaces only files that begin "
                            "with this line.\n" +
                            comments + calibration_yaml(fit),
                        inputs);
  if (result.refused())
    std::fprintf(stderr, "warning: written despite the errors above (--force)\n");
  if (format_.json()) {
    doc["written"] = out_;
    std::printf("%s\n", doc.dump(2).c_str());
  } else {
    std::printf("wrote %s\n", out_.c_str());
  }
  return 0;
}

}  // namespace slicelab
