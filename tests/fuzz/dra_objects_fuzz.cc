// Fuzzes the DRA object reader (workloads/inputs/dra_objects) and the CEL subset
// (sim/modes/dra/cel_*): a file that loads has every selector compiled, then evaluated against
// every device read. ResourceSlices read on parser events must give exactly what the tree
// reader gives, the same objects or the same error, or the input is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/modes/dra/dra_files.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/support/dra_objects_dump.h"
#include "workloads/input_error.h"
#include "workloads/inputs/dra_objects.h"

namespace {

std::string read_as(const std::string& path, slicelab::DraSliceReading how) {
  slicelab::DraObjects o;
  try {
    slicelab::read_dra_objects(path, o, how);
  } catch (const slicelab::InputError& e) {
    return std::string("error: ") + e.what();
  }
  return slicelab::testing::dump_dra_objects(o);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("dra.yaml", slicelab::fuzz::as_text(data, size));
  if (read_as(path, slicelab::DraSliceReading::Events) !=
      read_as(path, slicelab::DraSliceReading::Tree))
    __builtin_trap();
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
