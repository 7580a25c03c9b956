// Giving this machine's GPUs a policy's MIG layout (only with --allow-mig-reconfigure): which
// GPUs need new instances, and the nvidia-smi commands that destroy and create them.
#pragma once

#include <string>
#include <vector>

#include "backends/local/gpu_detection.h"
#include "sim/modes/mig/mig_settings.h"

namespace slicelab {

// What one GPU gets. `instances` are nvidia-smi profile tuples in creation order ("3g.40gb:4"
// where the GPU's table is known, else the bare profile name, largest first).
struct MigGpuPlan {
  unsigned gpu = 0;  // NVML index
  std::vector<std::string> instances;
  bool unchanged = false;        // its instances already are the layout: nothing to run
  bool holds_instances = false;  // NVML lists instances on it now
};

struct MigCommand {
  std::vector<std::string> argv;
  bool may_fail = false;  // a destroy on a GPU that lists no instances: "nothing to destroy"
};

// The catalog model whose MIG table fits an NVML name ("NVIDIA A100-SXM4-80GB" -> "A100-80GB",
// told apart by memory where the name does not say); "" when none does.
std::string mig_model_for(const DetectedGpu& gpu);

// One plan per GPU that a rule of `settings` applies to with MIG enabled. Throws, naming the
// GPU, when there is no layout, a GPU has MIG mode off (enabling it needs a GPU reset), or the
// layout does not fit the GPU's table.
std::vector<MigGpuPlan> plan_mig_layout(const std::vector<DetectedGpu>& gpus,
                                        const MigSettings* settings);

// The commands that carry out one plan with the `nvidia_smi` program: destroy compute and GPU
// instances, then create the layout. The destroys run even where NVML lists no instance: a GPU
// instance without a compute instance is not in NVML's device list but still holds its slices.
std::vector<MigCommand> mig_commands(const MigGpuPlan& plan, const std::string& nvidia_smi);

// `override_path` if not empty, else $SLICELAB_NVIDIA_SMI, else nvidia-smi on PATH; "" if none.
std::string find_nvidia_smi(const std::string& override_path);

// Runs every changed plan's commands in order; returns one line per GPU for people ("GPU 0:
// created 3g.40gb:4, 1g.10gb:6" or "GPU 1: already has the layout"). Throws with the failing
// command and its output.
std::vector<std::string> apply_mig_plans(const std::vector<MigGpuPlan>& plans,
                                         const std::string& nvidia_smi);

}  // namespace slicelab
