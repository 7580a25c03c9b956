// A scenario for the streamed pods.csv tests: 20,000 generated pods on 16 eight-GPU nodes, so
// that thousands complete in order while the run goes on (OutcomeFeed publishes in steps of
// 4,096), with names and a class that need CSV quoting, and two policies on different sharing
// modes. `extra_shape` adds a shape (a pod that never fits: its reason in the rows) and
// `engine` an engine section (restarts: the restarts column).
#pragma once

#include <string>

namespace slicelab::testing {

inline std::string streaming_scenario(const std::string& extra_shape = "",
                                      const std::string& engine = "") {
  return R"(name: streamed-rows
seed: 3
cluster:
  node_groups:
    - name: a100
      count: 16
      gpu_model: A100-80GB
      gpus_per_node: 8
      cpu_milli: 128000
      memory_mib: 1Ti
workload:
  generator:
    pods: 20000
    arrivals_per_hour: 60
    seed: 5
    shapes:
      - name: "frac,tion"
        weight: 50
        gpu_count: 1
        gpu_milli: 300
        gpu_memory_mib: 10000
        cpu_milli: 4000
        memory_mib: 16000
        class: 'say "hi"'
        duration: {distribution: lognormal, median: 3600, sigma: 0.8, min: 30}
      - name: two
        weight: 50
        gpu_count: 2
        gpu_milli: 1000
        gpu_memory_mib: 40000
        cpu_milli: 16000
        memory_mib: 64000
        duration: {distribution: lognormal, median: 3600, sigma: 0.8, min: 30}
)" + extra_shape +
         engine + R"(policies:
  - name: hami-binpack
    placement: hami-binpack
    sharing: {mode: hami}
  - name: best-fit
    placement: best-fit
)";
}

}  // namespace slicelab::testing
