// The vGPUs of every GPU during a run: which profile type each GPU hosts (one type per GPU
// until it is empty, as NVIDIA's time-sliced vGPU requires), how many, and each pod's type.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"
#include "sim/modes/vm/vgpu_profiles.h"
#include "sim/pod_request_view.h"
#include "workloads/pod_spec.h"

namespace slicelab {

class VgpuState {
 public:
  static constexpr int8_t kNone = -1;  // no profile: an empty GPU, or a pod with no fitting type

  // `fixed_size`: the profile every pod takes ("10C"), or empty for the rule of profile_for.
  VgpuState(const ClusterState& cluster, const GpuCatalog& catalog, std::string_view fixed_size,
            std::span<const PodSpec> pods, PodRequestView requests);

  // The profile a pod takes on a model's table: the one of size `fixed_size` when given, else
  // the smallest frame buffer with framebuffer_mib >= gpu_memory_mib and a nominal share
  // 1000 / max_per_gpu >= gpu_milli (ties: the first, i.e. the larger count); kNone if none.
  static int8_t profile_for(const VgpuTable& table, const PodSpec& pod,
                            std::string_view fixed_size);

  std::optional<std::string> never_fits(uint32_t pod) const;
  // GPU g can take one more vGPU of the pod's type: empty, or hosting that type below its max.
  bool fits(GpuId g, uint32_t pod) const;
  int usable_gpus(NodeId n, uint32_t pod) const;
  // Writes out.size() GPUs of n that fit: those already hosting the type first, fullest first
  // (binpack, so that empty GPUs stay free for other types), then the lower index.
  void choose(NodeId n, uint32_t pod, std::span<GpuId> out) const;

  void occupy(GpuId g, uint32_t pod);
  void release(GpuId g, uint32_t pod);

  const VgpuProfile* hosted(GpuId g) const;  // the type on g, or nullptr when empty
  int count(GpuId g) const { return count_[g]; }
  // The pod's type on g: its frame buffer, and its capacity units (kVgpuUnitsPerGpu / max).
  const VgpuProfile* pod_profile(GpuId g, uint32_t pod) const;
  int claim_units(GpuId g, uint32_t pod) const;

 private:
  int8_t profile_index(GpuId g, uint32_t pod) const;

  const ClusterState& cluster_;
  std::span<const PodSpec> pods_;
  std::string fixed_size_;
  size_t models_;
  std::vector<const VgpuTable*> table_;  // per GPU model; null: no vGPU on it
  std::vector<int8_t> gpu_profile_;      // per GPU
  std::vector<uint8_t> count_;           // per GPU
  std::vector<int8_t> pod_profile_;      // per pod x model
};

}  // namespace slicelab
