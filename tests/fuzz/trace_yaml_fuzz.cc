// Fuzzes the native YAML trace reader (workloads/inputs/pod_yaml): any bytes as trace.yaml.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/pod_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("trace.yaml", slicelab::fuzz::as_text(data, size));
  try {
    (void)slicelab::read_trace_file(path);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
