// Fuzzes the scenario loader (sim/scenario): any bytes as scenario.yaml. A clean InputError is
// the expected answer to bad input; any other exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>

#include "sim/scenario/scenario.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("scenario.yaml", slicelab::fuzz::as_text(data, size));
  try {
    (void)slicelab::load_scenario(path);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
