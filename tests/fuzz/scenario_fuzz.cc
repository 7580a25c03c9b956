// Fuzzes the scenario loader (sim/scenario): any bytes as scenarios/fuzz.yaml in a scratch copy
// of the repository's layout (links to the shipped traces, MIG configurations, topologies and
// calibration), so that the shipped scenarios' relative file references resolve. A clean
// InputError is the expected answer to bad input; any other exception, crash or sanitizer
// report is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "sim/scenario/scenario.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  namespace fs = std::filesystem;
  const fs::path source(SLICELAB_SOURCE_DIR);
  const fs::path& scratch = slicelab::fuzz::scratch_folder();
  fs::create_directories(scratch / "scenarios");
  for (const char* link :
       {"workloads", "calibration", "tests", "scenarios/mig-configs", "scenarios/topologies"})
    if (!fs::exists(scratch / link)) fs::create_directory_symlink(source / link, scratch / link);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("scenarios/fuzz.yaml", slicelab::fuzz::as_text(data, size));
  try {
    (void)slicelab::load_scenario(path);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
