#include "sim/interference/builtin_calibration.h"

namespace slicelab {

Calibration builtin_calibration() {
  Calibration c;
  c.source =
      "stated assumptions, not measurements (docs/sharing-models.md#default-calibration); "
      "replace with `slicelab calibrate` on your own co-location runs";
  // Demand vectors: share of SM time, share of memory bandwidth, launches per ms, alone.
  c.classes = WorkloadClasses({
      {"inference", 0.40, 0.35, 8.0, 0},
      {"training", 0.90, 0.60, 2.0, 0},
      {"interactive", 0.10, 0.05, 0.5, 0},
      {"compute-bound", 0.90, 0.10, 1.0, 0},
      {"memory-bound", 0.50, 0.80, 2.0, 0},
  });
  c.coefficients["time-slice"] = {0.15, 0.01};
  c.coefficients["mps"] = {0.80, 0.005};
  c.coefficients["interposer"] = {0.15, 0.01};
  c.interposer_launch_overhead_ns = 23.0;  // bench/limiter_overhead --paired, LaunchKernel (ns)
  return c;
}

}  // namespace slicelab
