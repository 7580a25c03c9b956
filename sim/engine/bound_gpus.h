// The GPUs each pod of a run was bound to, as its result reports them (2-byte indices within
// the node): written in place as a pod binds, packed at the end. Running pods': the tenant table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/metrics/run_result.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// Contract: prepare() gives every pod room for its request's GPU count, in pod order, and
// points its outcome's gpu_begin there (so nothing else is held per pod); bind() records a
// pod's GPUs (at most its room) and its gpu_count. take() packs them into RunResult::pod_gpus:
// in pod order, only the pods that were bound and did not fail, every outcome's gpu_begin and
// gpu_count set to its GPUs there (0 GPUs for the others).
class BoundGpus {
 public:
  void prepare(std::span<const PodSpec> pods, std::span<PodOutcome> outcomes);
  // The pod of outcome `o` was bound to `gpus` (global ids) of the node whose first GPU is
  // `first`.
  void bind(PodOutcome& o, GpuId first, std::span<const GpuId> gpus) {
    for (size_t k = 0; k < gpus.size(); ++k)
      within_node_[o.gpu_begin + k] = static_cast<uint16_t>(gpus[k] - first);
    o.gpu_count = static_cast<uint8_t>(gpus.size());
  }
  std::vector<uint16_t> take(std::span<PodOutcome> outcomes);
  // Every pod's room, as bind() fills it (gpu_begin indexes it until take()).
  std::span<const uint16_t> slots() const { return within_node_; }

 private:
  std::vector<uint16_t> within_node_;
};

}  // namespace slicelab
