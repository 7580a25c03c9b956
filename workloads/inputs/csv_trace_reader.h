// Reads any CSV pod trace through a user-given mapping from slicelab's pod fields to the file's
// columns, with units, so that traces other than openb load without code (scenario-format.md#csv).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/inputs/pod_yaml.h"
#include "workloads/pod_spec.h"
#include "workloads/rfc3339.h"

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
  // pod field -> the unit of its column, overriding the defaults below ("arrival" ->
  // "rfc3339", "gpu_milli" -> "percent"); see csv_field_units for each field's units.
  std::map<std::string, std::string> units;
  double time_unit_s = 1.0;      // arrival, duration, start, end
  double memory_unit_mib = 1.0;  // memory_mib, gpu_memory_mib, gpu_memory_used_mib
  double cpu_unit_milli = 1.0;   // cpu_milli
  // RFC 3339 times count from here; without it, from the earliest arrival in the file.
  std::optional<Rfc3339Time> time_origin;
};

// Unit names: time s, ms, min, h; memory MiB, GiB; cpu milli, cores. std::nullopt if unknown.
std::optional<double> csv_time_unit(std::string_view name);
std::optional<double> csv_memory_unit(std::string_view name);
std::optional<double> csv_cpu_unit(std::string_view name);

// The units a field's column may be given with ("field=column:unit"): times s, seconds, ms,
// min, h, duration (a Go duration per cell: 1h30m), rfc3339 (points in time only); gpu_milli
// milli or percent (HAMi's gpucores); memory MiB, GiB, bytes, quantity (a Kubernetes quantity
// per cell: 10Gi, 10G) and for gpu_memory_mib percent (HAMi's gpumem-percentage); cpu_milli
// milli, cores, quantity (4, 500m). Empty for fields that take none.
std::vector<std::string_view> csv_field_units(std::string_view field);

// Adds `field` from "column" or "column:unit" (split at the last ':') to the mapping.
void add_csv_column(CsvTraceMapping& mapping, const std::string& field, std::string_view spec);

// Why `unit` is not one of csv_field_units(field), with the closest one; std::nullopt if it is.
std::optional<std::string> check_csv_unit(std::string_view field, std::string_view unit);

// Why the mapping cannot work (an unknown field or unit, no duration), or std::nullopt.
std::optional<std::string> check_csv_mapping(const CsvTraceMapping& mapping);

// Throws InputError: "file:1: missing column ..." listing the header for a mapped column the
// file lacks, "file:line: column 'x': expected ..., found '...'" for a bad field. Adds to
// `warnings` (when given) what looks mistaken but is read as written: a gpu_milli column
// without a unit whose values are all 100 or less (percentages read as thousandths?).
std::vector<PodSpec> read_csv_trace(const CsvTraceMapping& mapping,
                                    const ModelCheck& check_model = {},
                                    std::vector<std::string>* warnings = nullptr);

}  // namespace slicelab
