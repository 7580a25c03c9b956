// Fuzzes the Helios job-log reader (workloads/inputs/helios_reader, over slurm_job_log): dates,
// whole numbers written as floats, the division of totals by node_num.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/helios_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("cluster_log.csv", slicelab::fuzz::as_text(data, size));
  slicelab::JobImportOptions options;
  options.keep_cpu_only = size % 2 == 0;
  try {
    (void)slicelab::read_helios_jobs(path, options);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
