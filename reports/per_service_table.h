// The terminal's per-service table of a run with services: each policy's latency percentiles,
// share within SLO, lost requests and replicas per service (docs/inference-services.md#results).
#pragma once

#include <span>
#include <string>

#include "sim/metrics/run_result.h"

namespace slicelab {

// "" when no run has services.
std::string per_service_table(std::span<const RunResult> runs);

}  // namespace slicelab
