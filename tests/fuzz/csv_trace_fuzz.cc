// Fuzzes the generic CSV trace reader (workloads/inputs/csv_trace_reader). The first byte picks the
// column mapping (separator, units, duration or start/end, which optional fields are mapped);
// the rest is the file, whose header names columns after slicelab's fields. Start/end mappings
// with the CPU bit set read RFC 3339 times, percentages and Kubernetes quantities.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/csv_trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned pick = data[0];
  slicelab::CsvTraceMapping mapping;
  mapping.file =
      slicelab::fuzz::write_input("trace.csv", slicelab::fuzz::as_text(data + 1, size - 1));
  constexpr char kSeparators[] = {',', ';', '\t', '|'};
  mapping.separator = kSeparators[pick & 3U];
  constexpr double kTimeUnits[] = {1.0, 0.001, 60.0, 3600.0};
  mapping.time_unit_s = kTimeUnits[(pick >> 2U) & 3U];
  mapping.memory_unit_mib = (pick & 16U) != 0 ? 1024.0 : 1.0;
  mapping.cpu_unit_milli = (pick & 32U) != 0 ? 1000.0 : 1.0;
  if ((pick & 64U) != 0) {
    mapping.columns = {{"start", "start"}, {"end", "end"}};
  } else {
    mapping.columns = {{"duration", "duration"}};
  }
  if ((pick & 128U) != 0) {
    for (const auto field : slicelab::kCsvTraceFields) {
      const std::string name(field);
      if (name != "duration" && name != "start" && name != "end") mapping.columns[name] = name;
    }
  } else {
    mapping.columns["arrival"] = "arrival";
    mapping.columns["gpu_count"] = "gpu_count";
  }
  // Start and end with the CPU bit set: the per-column units, RFC 3339 times and quantities.
  if ((pick & 64U) != 0 && (pick & 32U) != 0) {
    mapping.units = {{"start", "rfc3339"},     {"end", "rfc3339"},
                     {"gpu_milli", "percent"}, {"gpu_memory_mib", "quantity"},
                     {"memory_mib", "bytes"},  {"cpu_milli", "quantity"}};
    if (mapping.columns.contains("arrival")) mapping.units["arrival"] = "rfc3339";
  }
  if (slicelab::check_csv_mapping(mapping)) return 0;
  try {
    (void)slicelab::read_csv_trace(mapping);
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
