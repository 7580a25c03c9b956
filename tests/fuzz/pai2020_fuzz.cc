// Fuzzes the PAI 2020 reader (workloads/inputs/pai2020_reader): the input as a task table alone,
// then as both the task and the job table (header rows or none, GPU percentages, joins).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/pai2020_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path =
      slicelab::fuzz::write_input("pai_task_table.csv", slicelab::fuzz::as_text(data, size));
  slicelab::JobImportOptions options;
  options.check_model = [](std::string_view m) -> std::optional<std::string> {
    if (m == "T4" || m == "V100-16GB") return std::nullopt;
    return "unknown";
  };
  try {
    (void)slicelab::read_pai2020_jobs(path, "", options);
  } catch (const slicelab::InputError&) {
  }
  try {
    (void)slicelab::read_pai2020_jobs(path, path, options);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
