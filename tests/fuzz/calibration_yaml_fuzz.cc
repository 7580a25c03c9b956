// Fuzzes the calibration YAML reader (sim/interference/calibration), and its writer on what
// it reads: the written YAML must read back.
#include <cstddef>
#include <cstdint>

#include "sim/interference/calibration.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("calibration.yaml", slicelab::fuzz::as_text(data, size));
  slicelab::Calibration calibration;
  try {
    calibration = slicelab::load_calibration(path);
  } catch (const slicelab::InputError&) {
    return 0;
  }
  // No catch here: YAML that slicelab wrote itself must load.
  (void)slicelab::load_calibration(
      slicelab::fuzz::write_input("written.yaml", slicelab::calibration_yaml(calibration)));
  return 0;
}
