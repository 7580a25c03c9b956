// The GPUs each pod of a run is bound to, as one flat array with per-pod offsets (prefix sums of
// the pods' GPU counts), so that binding a pod writes in place and nothing is allocated per pod.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "workloads/pod_spec.h"

namespace slicelab {

class PodGpus {
 public:
  void prepare(std::span<const PodSpec> pods) {
    offset_.resize(pods.size() + 1);
    uint32_t off = 0;
    for (size_t i = 0; i < pods.size(); ++i) {
      offset_[i] = off;
      off += static_cast<uint32_t>(pods[i].gpu_count);
    }
    offset_[pods.size()] = off;
    gpus_.resize(off);
  }
  // The pod's GPUs (global ids); meaningful once it was bound.
  std::span<const GpuId> of(uint32_t pod) const {
    return std::span<const GpuId>(gpus_).subspan(offset_[pod], offset_[pod + 1] - offset_[pod]);
  }
  std::span<GpuId> set(uint32_t pod) {
    return std::span<GpuId>(gpus_).subspan(offset_[pod], offset_[pod + 1] - offset_[pod]);
  }
  bool spans_several(uint32_t pod) const { return offset_[pod + 1] - offset_[pod] > 1; }
  size_t total() const { return gpus_.size(); }

 private:
  std::vector<uint32_t> offset_;  // per pod, into gpus_; one more at the end
  std::vector<GpuId> gpus_;
};

}  // namespace slicelab
