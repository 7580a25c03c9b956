// The interposer's cost per kernel: each micro-kernel solo, alternately without and with the
// interposer preloaded (no caps), many repetitions, medians and spreads, overhead as a ratio.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "backends/local/gpu_detection.h"
#include "kernel_harness/kernel_process.h"

namespace slicelab {

struct OverheadOptions {
  std::vector<std::string> kernels;  // empty: all of the catalog
  int repetitions = 7;               // runs of each variant per kernel
  long units = 0;                    // units per run; 0: the kernel's default (units_for)
};

// Units per run that take roughly a second on a current GPU.
long default_units(const std::string& kernel);

// Throws std::runtime_error when a run fails (with the kernel's own error).
nlohmann::ordered_json measure_overhead(const HarnessTools& tools, const OverheadOptions& options,
                                        const DetectedGpu& gpu);

}  // namespace slicelab
