// Co-location slowdown: pairs of kernels run together on one GPU under each mode, each pair's
// per-unit time over its solo per-unit time, written as the CSV `slicelab calibrate` reads:
// class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "backends/local/gpu_detection.h"
#include "backends/local/isolation.h"
#include "kernel_harness/kernel_process.h"

namespace slicelab {

struct ColocationOptions {
  std::vector<std::string> kernels{"fma", "triad", "inference-mix"};
  std::vector<Mechanism> modes{Mechanism::kTimeSlice, Mechanism::kMps, Mechanism::kInterposer,
                               Mechanism::kWholeCard, Mechanism::kMig};
  std::vector<std::pair<double, double>> caps{{0.5, 0.5}};  // for mps and interposer
  double duration_s = 3;
};

struct ColocationRow {
  std::string class_a, class_b, mode;
  double cap_a = 1, cap_b = 1, slowdown_a = 0, slowdown_b = 0;
};

inline constexpr const char* kColocationCsvHeader =
    "class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b";

std::string colocation_csv(const std::vector<ColocationRow>& rows);

// Modes that cannot run here (whole-card with one GPU, MIG with fewer than two instances, MPS
// without its control program) add a line to `skipped` and no rows. Throws when a run fails.
std::vector<ColocationRow> measure_colocation(const HarnessTools& tools,
                                              const ColocationOptions& options,
                                              const std::vector<DetectedGpu>& gpus,
                                              std::vector<std::string>& skipped);

}  // namespace slicelab
