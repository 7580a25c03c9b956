// Fuzzes the co-location measurements CSV (sim/calibration/calibration_fit) and, when it
// reads, the non-negative least-squares fit over it with the built-in workload classes.
#include <cstddef>
#include <cstdint>

#include "sim/calibration/calibration_fit.h"
#include "sim/interference/builtin_calibration.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("measurements.csv", slicelab::fuzz::as_text(data, size));
  try {
    const auto rows = slicelab::read_measurements_csv(path);
    // The fit runs the limiter simulation per row: keep an input's work bounded.
    if (rows.size() <= 64)
      (void)slicelab::fit_calibration(rows, slicelab::builtin_calibration().classes, path, "fuzz");
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
