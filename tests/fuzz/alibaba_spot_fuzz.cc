// Fuzzes the Alibaba spot-GPU trace reader (workloads/inputs/alibaba_spot_reader): fractional
// GPU requests, job types, duplicate names and the submission window.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/alibaba_spot_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("job_info_df.csv", slicelab::fuzz::as_text(data, size));
  slicelab::JobImportOptions options;
  options.keep_cpu_only = size % 2 == 0;
  options.check_model = [](std::string_view m) -> std::optional<std::string> {
    if (m == "A10") return std::nullopt;
    return "unknown";
  };
  try {
    (void)slicelab::read_alibaba_spot_jobs(path, options);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
