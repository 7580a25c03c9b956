// Fuzzes the Acme job-trace reader (workloads/inputs/acme_reader, over slurm_job_log): zoned
// dates, the class and memory columns.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/acme_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("trace_kalos.csv", slicelab::fuzz::as_text(data, size));
  slicelab::JobImportOptions options;
  options.keep_cpu_only = size % 2 == 0;
  try {
    (void)slicelab::read_acme_jobs(path, options);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
