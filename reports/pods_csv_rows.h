// pods.csv's header and rows, byte for byte, from a run's result or from a run still going
// (reports/streamed_pods_csv.h): one writer, so the streamed file cannot drift from the other.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// Rows are formatted in blocks of this many (docs/performance.md).
inline constexpr size_t kPodRowsPerBlock = 8192;

// The header line (with the restarts column where the scenario has a restart policy).
std::string pods_csv_header(const Scenario& scenario);

// One row: `policy` already quoted as a CSV field; `gpus` the pod's GPUs (indices within its
// node); `reason` why it failed or was never placed ("" when it did not).
void append_pod_row(fmt::memory_buffer& buf, std::string_view policy, const PodSpec& spec,
                    const PodOutcome& o, std::span<const uint16_t> gpus, std::string_view reason,
                    bool restarts);

// The rows of `runs` in order, run after run, except the first `skip` rows of the first run,
// handed to `sink` in blocks of kPodRowsPerBlock, formatted on `width` threads (at most four:
// the writes stay serial); the bytes do not depend on the width.
void write_pod_rows(const std::function<void(std::string_view)>& sink, const Scenario& scenario,
                    std::span<const RunResult> runs, size_t skip, int width);

}  // namespace slicelab
