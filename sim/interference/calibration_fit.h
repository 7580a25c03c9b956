// Fitting the interference coefficients to measured co-location runs (least squares, Eigen),
// and reading the measurements CSV that the kernels harness writes.
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
// cap_b (shares, (0, 1]), and each one's measured slowdown (time co-located / time alone).
struct Measurement {
  size_t line = 0;
  std::string class_a, class_b, mode;
  double cap_a = 1, cap_b = 1, slowdown_a = 1, slowdown_b = 1;
};

// Header: class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b (any column order, extra
// columns ignored). Throws InputError "file:line: ..." on any bad field.
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

// Fits every mode present in `rows`: for each tenant of each row,
//   slowdown_i * base_i - 1 = a_m * bw_i * bw_j + b_m * launch_j,
// by least squares. Unknown classes and modes whose rows cannot separate the two effects are
// errors naming `file` and the line. The result holds the classes, coefficients and residuals.
Calibration fit_calibration(std::span<const Measurement> rows, const WorkloadClasses& classes,
                            std::string_view file, std::string source);

}  // namespace slicelab
