// Reads any CSV pod trace through a user-given mapping from slicelab's pod fields to the file's
// columns, with units, so that traces other than openb load without code (scenario-format.md#csv).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/pod_spec.h"
#include "workloads/pod_yaml.h"

namespace slicelab {

// The pod fields a column can be mapped to. `end` with `start` (or with `arrival` when there is
// no `start`) is an alternative to `duration`; `arrival` defaults to `start`, else to 0.
// `gpu_memory_used_mib` is what a pod really used at its peak (Alibaba PAI's max_gpu_wrk_mem).
// clang-format off
inline constexpr std::string_view kCsvTraceFields[] = {
    "name", "arrival", "duration", "start", "end", "gpu_count", "gpu_milli", "gpu_memory_mib",
    "gpu_memory_used_mib", "cpu_milli", "memory_mib", "priority", "allowed_models", "class"};
// clang-format on

struct CsvTraceMapping {
  std::string file;
  char separator = ',';
  std::map<std::string, std::string> columns;  // pod field -> column name in the file
  double time_unit_s = 1.0;                    // arrival, duration, start, end
  double memory_unit_mib = 1.0;                // memory_mib, gpu_memory_mib, gpu_memory_used_mib
  double cpu_unit_milli = 1.0;                 // cpu_milli
};

// Unit names: time s, ms, min, h; memory MiB, GiB; cpu milli, cores. std::nullopt if unknown.
std::optional<double> csv_time_unit(std::string_view name);
std::optional<double> csv_memory_unit(std::string_view name);
std::optional<double> csv_cpu_unit(std::string_view name);

// Why the mapping cannot work (an unknown field, no duration), or std::nullopt when it can.
std::optional<std::string> check_csv_mapping(const CsvTraceMapping& mapping);

// Throws InputError: "file:1: missing column ..." listing the header for a mapped column the
// file lacks, "file:line: column 'x': expected ..., found '...'" for a bad field.
std::vector<PodSpec> read_csv_trace(const CsvTraceMapping& mapping,
                                    const ModelCheck& check_model = {});

}  // namespace slicelab
