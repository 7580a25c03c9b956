// Fuzzes the `nvidia-smi topo -m` matrix reader (sim/topology/nvidia_smi_import), in memory.
#include <cstddef>
#include <cstdint>

#include "sim/topology/nvidia_smi_import.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)slicelab::parse_nvidia_smi_topo(slicelab::fuzz::as_text(data, size), "topo.txt");
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
