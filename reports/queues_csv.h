// results/<scenario>/queues.csv: each queue's quota in use, borrowed, and its jobs waiting and
// admitted, at every sample time of a run with queues (docs/results-format.md#queuescsv).
#pragma once

#include <ostream>
#include <span>

#include "sim/metrics/run_result.h"

namespace slicelab {

// Whether `runs` have queue samples to write.
bool has_queue_rows(std::span<const RunResult> runs);
// The header and one row per run, sample time and queue.
void write_queues_csv(std::ostream& out, std::span<const RunResult> runs);

}  // namespace slicelab
