// Fitting the interference coefficients to measured co-location runs (non-negative least
// squares), judging whether the data supports the model, and reading the measurements CSV.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/interference/calibration.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

// One row: two tenants of classes a and b co-located under `mode` with compute caps cap_a and
// cap_b (shares, (0, 1]), and each one's measured slowdown (time co-located / time alone on
// the whole GPU).
struct Measurement {
  size_t line = 0;
  std::string class_a, class_b, mode;
  double cap_a = 1, cap_b = 1, slowdown_a = 1, slowdown_b = 1;
};

// A tenant never runs faster beside a neighbour than alone: a measured slowdown may fall below
// 1 by this much (timing noise); further below is an input error.
inline constexpr double kSlowdownNoise = 0.05;

// Header: class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b (any column order, extra
// columns ignored). Modes: the interfering ones, plus whole-card and mig (the kernels harness
// measures them too; the fit skips them). Throws InputError "file:line: ..." on any bad field.
std::vector<Measurement> read_measurements_csv(const std::string& path);

// The sharing modes' own compute models with interference switched off: the rate each tenant
// of a measured pair would get from its share alone (one mode object per mode, so the
// interposer's limiter simulations are cached across rows).
class BaseRates {
 public:
  BaseRates();
  ~BaseRates();
  BaseRates(const BaseRates&) = delete;
  BaseRates& operator=(const BaseRates&) = delete;
  // The two tenants' loads and base rates for one measurement (classes must be known).
  void pair(const Measurement& m, const WorkloadClasses& classes, std::span<TenantLoad, 2> loads,
            std::span<double, 2> base);

 private:
  std::vector<std::pair<std::string, std::unique_ptr<SharingMode>>> modes_;
};

// Predicted slowdowns of the pair's two tenants under coefficients `c`: f_i / base_i.
void predict_slowdowns(const Measurement& m, const WorkloadClasses& classes,
                       const InterferenceCoefficients& c, BaseRates& base, double out[2]);

// When the data cannot support the model (docs/sharing-models.md#calibration).
inline constexpr size_t kMinRowsPerMode = 3;             // fewer pairs: a warning
inline constexpr double kWarnRelativeResidual = 0.10;    // RMS / mean slowdown above: warning
inline constexpr double kRefuseRelativeResidual = 0.25;  // above: refused

// Something the fit found wrong with a mode's data. A refusal means the data cannot support
// the model: `slicelab calibrate` writes nothing unless forced.
struct FitIssue {
  std::string mode;  // empty: the file as a whole
  bool refuses = false;
  std::string text;  // starts with the mode
};

struct CalibrationFit {
  Calibration calibration;
  std::vector<FitIssue> issues;  // by mode, in kInterferingModes order
  bool refused() const;
};

// Fits every interfering mode present in `rows`: for each tenant of each row, with base_i its
// rate from the mode's share model,
//   slowdown_i - 1/base_i = (a_m * x_bw + b_m * x_launch) / base_i,   a_m, b_m >= 0,
// by non-negative least squares (the residual is that of the slowdown itself). Unknown
// classes, share-model rates of 0 and files without rows of an interfering mode are InputErrors
// naming `file` and the line; what the data cannot support is reported in `issues`.
CalibrationFit fit_calibration(std::span<const Measurement> rows, const WorkloadClasses& classes,
                               std::string_view file, std::string source);

}  // namespace slicelab
