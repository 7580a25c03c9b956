// What one pod asks for and how long it runs: the unit every trace, generator and policy speaks.
// Plain value type; validated by the readers that build it, trusted by the engine.
#pragma once

#include <cstdint>

#include "workloads/model_list.h"
#include "workloads/pod_name.h"
#include "workloads/pod_slo.h"
#include "workloads/shared_text.h"

namespace slicelab {

struct PodSpec {
  PodName name;
  double arrival_s = 0.0;
  // Solo run time on a whole GPU (see docs/scenario-format.md for speed scaling).
  double duration_s = 0.0;
  int gpu_count = 0;  // 0 = CPU-only pod
  // Share of each GPU, 1..1000; only below 1000 for one-GPU pods. 16 bits, as is the percentage
  // below, so that the five small fields fill two 8-byte words with no padding: every reader
  // rejects a share outside 1..1000 and a percentage outside 1..100 (tests/malformed/
  // gpu_milli_too_large.yaml, gpu_memory_percent_too_large.yaml), far inside int16_t.
  int16_t gpu_milli = 1000;
  // HAMi's nvidia.com/gpumem-percentage: the request as a percentage (1..100) of each chosen
  // GPU's memory, resolved where the GPU is known; 0 = gpu_memory_mib is the request.
  int16_t gpu_memory_percent = 0;
  int64_t gpu_memory_mib = 0;  // peak device memory per GPU
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int priority = 0;  // higher is scheduled first
  // What the pod really uses of each GPU's memory at its peak (MiB), when the trace says
  // (Alibaba's max_gpu_wrk_mem, a pod YAML's gpu_memory_used_mib); 0 = its request,
  // gpu_memory_mib. Overcommitted GPUs (HAMi's deviceMemoryScaling) fail on this, not on the
  // request.
  int32_t gpu_memory_used_mib = 0;
  // The class, MIG profile and models are shared between pods with the same value (a shape's
  // pods, a trace's repeated values): with the 16-byte name, the shared SLO and no padding
  // between the fields a pod takes 104 bytes, not 208 (a million-pod workload is 104 MB).
  ModelList allowed_models;  // empty = any GPU model
  SharedText workload_class;
  // MIG: the GPU-instance profile asked for ("1g.10gb"); empty = derived from gpu_milli and
  // gpu_memory_mib by a MIG policy. Ignored by the other sharing modes.
  SharedText mig_profile;
  // Null = no SLO; set through set_slo(), which shares nothing when both limits are absent.
  SharedValue<PodSlo> slo;

  bool has_slo() const { return static_cast<bool>(slo); }
  OptionalSeconds slo_max_queue_s() const { return slo ? slo->max_queue_s : OptionalSeconds(); }
  OptionalSeconds slo_max_jct_s() const { return slo ? slo->max_jct_s : OptionalSeconds(); }
  void set_slo(OptionalSeconds max_queue_s, OptionalSeconds max_jct_s) {
    slo = share_slo(PodSlo{max_queue_s, max_jct_s});
  }
};
static_assert(sizeof(PodSpec) <= 104, "PodSpec is held once per pod of a workload");

}  // namespace slicelab
