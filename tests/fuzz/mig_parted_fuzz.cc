// Fuzzes the nvidia-mig-parted configuration reader (sim/modes/mig/mig_parted): bytes as the file.
#include <cstddef>
#include <cstdint>

#include "sim/modes/mig/mig_parted.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("mig-parted.yaml", slicelab::fuzz::as_text(data, size));
  try {
    const auto config = slicelab::load_mig_parted_file(path);
    (void)config.names();
    for (const auto& [name, rules] : config.configs)
      for (const auto& rule : rules) (void)rule.applies_to(0);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
