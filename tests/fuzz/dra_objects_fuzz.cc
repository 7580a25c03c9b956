// Fuzzes the DRA object reader (workloads/inputs/dra_objects) and the CEL subset
// (sim/modes/dra/cel_*): a file that loads has every selector compiled, then evaluated against
// every device read.
#include <cstddef>
#include <cstdint>

#include "sim/modes/dra/dra_files.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("dra.yaml", slicelab::fuzz::as_text(data, size));
  try {
    const slicelab::LoadedDra dra = slicelab::load_dra_files({path});
    for (const slicelab::DraResourceSlice& slice : dra.model->resource_slices)
      for (const slicelab::DraDevice& device : slice.devices)
        for (slicelab::DraSelectorId s = 0; s < dra.selectors->size(); ++s)
          (void)dra.selectors->matches(s, device, slice.driver);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
