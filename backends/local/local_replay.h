// `slicelab replay --backend local`: runs a scenario's pods as real processes on this
// machine's GPUs, placed by the scenario's policy and isolated by the real mechanism, and
// records what happened in the simulator's RunResult format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/local/gpu_detection.h"
#include "backends/local/isolation.h"
#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

struct LocalReplayOptions {
  // The workload program, run as `<binary> <kernel> --duration <s> --device 0` (slicelab-kernel,
  // or the CPU stand-in in tests).
  std::string workload_binary;
  std::string default_kernel = "fma";  // for pods whose class is not a kernel name
  // A shell command run for every pod instead of a kernel (placeholders: {pod}, {kernel},
  // {duration}); empty = kernels.
  std::string command;
  std::string interposer_library;
  std::string mps_control;             // empty: $SLICELAB_MPS_CONTROL or PATH
  std::optional<Mechanism> mechanism;  // empty: from the policy's sharing kind
  double time_scale = 1.0;             // real seconds per scenario second
  double timeout_factor = 2.0;         // a pod is killed after factor x duration + grace
  double timeout_grace_s = 10.0;
  double kill_grace_s = 2.0;  // SIGTERM to SIGKILL
  bool allow_mig_reconfigure = false;
  std::string work_dir;  // pod logs (<pod>.log) and interposer regions
};

struct LocalReplay {
  Scenario local_scenario;  // the scenario with the local machine as its cluster
  RunResult result;
};

// Throws std::runtime_error for what stops the whole run (no GPU, MPS will not start, MIG
// without instances); a pod's own failure is recorded in its outcome.
LocalReplay replay_local(const Scenario& scenario, const PolicySpec& policy,
                         const std::vector<DetectedGpu>& gpus, const LocalReplayOptions& options);

}  // namespace slicelab
