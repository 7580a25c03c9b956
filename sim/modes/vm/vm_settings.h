// What a policy's `sharing: {mode: passthrough | vgpu, ...}` says: the VM boot delay, and for
// vGPU its scheduler, time slice, switch cost and an optional fixed profile (docs/vm-sharing.md).
#pragma once

#include <string>
#include <string_view>

namespace slicelab {

// NVIDIA vGPU's time-sliced schedulers ("vGPU Schedulers", NVIDIA vGPU knowledge base).
enum class VgpuScheduler {
  kBestEffort,  // round robin; a vGPU with no work cedes its slice (work-conserving)
  kEqualShare,  // each running vGPU gets 1/n of the time, n = vGPUs on the GPU now
  kFixedShare,  // each vGPU gets 1/max-count of its type, even when the others are idle
};

std::string_view vgpu_scheduler_name(VgpuScheduler s);  // "best-effort", ...

struct VmSettings {
  // Seconds from placement until the VM's guest runs its work: firmware, kernel, the guest
  // driver, and VFIO pinning the guest's memory. A stated assumption (docs/vm-sharing.md).
  static constexpr double kDefaultBootS = 30.0;
  double boot_s = kDefaultBootS;

  // --- vgpu ---
  VgpuScheduler scheduler = VgpuScheduler::kBestEffort;
  // Time slice per vGPU turn and the GPU time lost at each switch between vGPUs (ms).
  static constexpr double kDefaultTimeSliceMs = 2.0;
  static constexpr double kDefaultSwitchCostMs = 0.1;
  double time_slice_ms = kDefaultTimeSliceMs;
  double switch_cost_ms = kDefaultSwitchCostMs;
  // A profile size every pod takes ("10C"); empty: the smallest that holds the pod.
  std::string profile;

  // Share of the GPU's time left for work while vGPUs take turns: T / (T + switch cost).
  double slice_efficiency() const { return time_slice_ms / (time_slice_ms + switch_cost_ms); }
};

}  // namespace slicelab
