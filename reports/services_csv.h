// results/<scenario>/services.csv: each service's request rate, latency percentiles, lost share
// and replicas, interval by interval, in a run with services (docs/results-format.md#servicescsv).
#pragma once

#include <ostream>
#include <span>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Whether `runs` have service samples to write.
bool has_service_rows(std::span<const RunResult> runs);
// The header and one row per run, interval and service.
void write_services_csv(std::ostream& out, std::span<const RunResult> runs);

}  // namespace slicelab
