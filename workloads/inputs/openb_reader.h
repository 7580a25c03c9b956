// Reads the Alibaba GPU cluster trace of 2023 ("openb", cluster-trace-gpu-v2023): its node list
// into groups of identical nodes and its pod list into PodSpecs (docs/scenario-format.md#openb).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/inputs/pod_yaml.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// Identical nodes of the node list (same CPU, memory, GPU count and model), in order of first
// appearance. The catalog index is resolved by the scenario loader, which owns the catalog.
struct OpenbNodeGroup {
  std::string name;  // "openb-G2-8gpu", "openb-cpu"; "-2", "-3" ... when a name repeats
  int count = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus_per_node = 0;  // 0 = CPU-only
  std::string gpu_model;  // slicelab catalog name (see openb_model_name); empty for CPU-only
};

// The slicelab catalog name of an openb GPU type: V100M16 -> V100-16GB, V100M32 -> V100-32GB;
// P100, T4, A10 and the undisclosed G1, G2, G3 keep their names. Unknown types map to
// themselves, so that a scenario's gpu_models can define them.
std::string openb_model_name(std::string_view openb_type);

// The undisclosed types G1, G2, G3 with the built-in model each copies by default. These are
// assumptions, not facts from the trace; a scenario overrides them with gpu_models.
struct OpenbAssumedModel {
  const char* name;
  const char* like;
};
inline constexpr OpenbAssumedModel kOpenbAssumedModels[] = {
    {"G1", "A10"}, {"G2", "A100-80GB"}, {"G3", "H100-80GB"}};

// Columns sn, cpu_milli, memory_mib, gpu, model. Throws InputError "file:line: ..." on a bad row.
std::vector<OpenbNodeGroup> read_openb_nodes(const std::string& path);

struct OpenbPodOptions {
  // Duration of every pod when the file has no creation_time/deletion_time columns (the
  // multigpuNN samples); such pods all arrive at 0.
  double default_duration_s = 3600.0;
};

// Columns name, cpu_milli, memory_mib, num_gpu, gpu_milli required; gpu_spec, qos,
// creation_time, deletion_time optional (pod_phase and scheduled_time are ignored).
// `check_model` vets each mapped gpu_spec model. Throws InputError "file:line: ..." on a bad row.
std::vector<PodSpec> read_openb_pods(const std::string& path, const OpenbPodOptions& options = {},
                                     const ModelCheck& check_model = {});

}  // namespace slicelab
