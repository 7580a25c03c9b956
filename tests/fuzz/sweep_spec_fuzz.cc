// Fuzzes the sweep file reader (planning/sweep_grid): bytes as sweep.yaml, next to a copy of
// the quickstart scenario named base.yaml so that `scenario: base.yaml` resolves.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "planning/sweep_grid.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  std::filesystem::copy_file(SLICELAB_SOURCE_DIR "/scenarios/quickstart.yaml",
                             slicelab::fuzz::scratch_folder() / "base.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("sweep.yaml", slicelab::fuzz::as_text(data, size));
  try {
    (void)slicelab::read_sweep_spec(path);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
