// Fuzzes the Alibaba openb CSV readers (workloads/inputs/openb_reader): the same bytes as a node
// list and as a pod list, since a fuzzer's mutation can reach either header.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/openb_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("openb.csv", slicelab::fuzz::as_text(data, size));
  try {
    (void)slicelab::read_openb_nodes(path);
  } catch (const slicelab::InputError&) {
  }
  try {
    (void)slicelab::read_openb_pods(path);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
