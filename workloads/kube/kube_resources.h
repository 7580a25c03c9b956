// A pod's resource request gathered from every spelling the pod format accepts (gpu_count,
// cpu_milli, cpu, memory, and Kubernetes' `resources` names), then checked and put in a PodSpec.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "workloads/pod_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// One requested amount and where it was written, so that a second spelling of the same thing
// or a rule it breaks is reported at it.
struct RequestedAmount {
  int64_t value = 0;
  YAML::Node at;     // the value's node
  std::string path;  // "pods[0].resources.limits.nvidia.com/gpu"
  std::string key;   // the key as written: "gpu_count", "nvidia.com/gpu", "cpu"
  bool given() const { return !key.empty(); }
};

// What a pod asks for, before the pod format's rules are applied. Each field may be given by
// one key only: `cpu` and `cpu_milli`, or `gpu_count` and `nvidia.com/gpu`, are one request.
struct PodResourceRequest {
  RequestedAmount gpu_count;           // gpu_count, nvidia.com/gpu, nvidia.com/mig-<profile>
  RequestedAmount gpu_milli;           // gpu_milli, nvidia.com/gpucores (percent × 10)
  RequestedAmount gpu_memory_mib;      // gpu_memory_mib, nvidia.com/gpumem
  RequestedAmount gpu_memory_percent;  // nvidia.com/gpumem-percentage
  RequestedAmount cpu_milli;           // cpu_milli, cpu
  RequestedAmount memory_mib;          // memory_mib, memory
  RequestedAmount mig;                 // mig_profile, nvidia.com/mig-<profile> (value unused)
  std::string mig_profile;             // slicelab's spelling: "1g.10gb", "1g.10gb+me"
  // HAMi gives a container that names gpumem, gpumem-percentage or gpucores without
  // nvidia.com/gpu one GPU (its defaultGPUNum); set when those came as resource names.
  bool hami_default_gpu = false;

  // Records `value` in `slot`; fails at `at` when another key already gave it, naming both.
  void set(const YamlReader& yaml, RequestedAmount& slot, int64_t value, const YAML::Node& at,
           std::string path, std::string key);
};

// Reads a Kubernetes `resources` mapping at `node` into `request`: either the names directly
// (cpu, memory, nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpumem-percentage,
// nvidia.com/gpucores, nvidia.com/mig-<profile>), or `limits:` and `requests:` holding them as
// a container spec does. CPU and memory are read from requests (limits when there are none),
// the nvidia.com names from limits (requests when there are none), as the scheduler and HAMi
// read them. ephemeral-storage and hugepages-* are accepted and ignored; any other name is an
// error with the closest known name. Usable for pod YAML and for kubectl's JSON alike.
void read_kubernetes_resources(const YamlReader& yaml, const YAML::Node& node,
                               std::string_view path, PodResourceRequest& request);

// Puts `request` into `pod` under the pod format's rules (a share below a whole GPU is for
// one-GPU pods, GPU memory needs a GPU, a MIG profile is one GPU, ...), failing at the key that
// breaks one.
void apply_resource_request(const YamlReader& yaml, const PodResourceRequest& request,
                            PodSpec& pod);

}  // namespace slicelab
