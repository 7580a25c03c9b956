// Fuzzes the Philly job-log reader (workloads/inputs/philly_reader): the list scanner that cuts
// the file into job objects, the bounded parse of each, and the mapping of its attempts.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/philly_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("philly.json", slicelab::fuzz::as_text(data, size));
  for (const auto run_time :
       {slicelab::PhillyRunTime::kLastAttempt, slicelab::PhillyRunTime::kAllAttempts}) {
    slicelab::PhillyOptions options;
    options.run_time = run_time;
    options.keep_cpu_only = run_time == slicelab::PhillyRunTime::kAllAttempts;
    try {
      (void)slicelab::read_philly_jobs(path, options);
    } catch (const slicelab::InputError&) {
    }
  }
  return 0;
}
