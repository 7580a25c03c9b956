// vGPU's state for one run behind the engine's sharing seam: the vGPUs of every GPU (VgpuState),
// the placement plugin that takes and gives them back, each tenant's fixed share, frame-buffer
// limits and the VM boot delay.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/modes/vm/vgpu_state.h"
#include "sim/modes/vm/vm_settings.h"
#include "sim/placement/plugins.h"
#include "sim/sharing/sharing_run.h"

namespace slicelab {

class VgpuRun final : public SharingRun, public PreFilter, public ReservePlugin {
 public:
  // `settings` outlives the run (the VgpuSharing mode holds it).
  VgpuRun(const RunSetup& setup, const VmSettings& settings);

  // --- the placement plugin ---
  std::string_view name() const override { return "vgpu"; }
  // Keeps the nodes with req.gpu_count GPUs that can take one more vGPU of the pod's type.
  bool pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) override;
  // Takes one vGPU on each of the pod's GPUs (VgpuState::choose) and sets the request's claim
  // to the type's units. Refuses, holding nothing, when the node has too few such GPUs.
  bool reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) override;
  void unreserve(const SchedulingCycle& cycle, NodeId node, std::span<const GpuId> gpus) override;

  // --- the sharing seam ---
  RunPlugins plugins() override { return {{this}, {}, {}, {this}}; }
  std::optional<std::string> never_fits(uint32_t pod) const override {
    return state_.never_fits(pod);
  }
  double start_delay_s(uint32_t pod) const override {
    return pods_[pod].gpu_count > 0 ? settings_.boot_s : 0.0;
  }
  void release(uint32_t pod, std::span<const GpuId> gpus) override;
  // Each tenant's `cap` becomes its type's nominal share, 1 / max_per_gpu (the fixed share).
  void apply_sm_caps(GpuId g, std::span<const uint32_t> pods,
                     std::span<TenantLoad> loads) const override;
  // A vGPU's memory is its frame buffer, which no neighbour can take.
  int64_t partition_memory_mib(GpuId g, uint32_t pod) const override;
  std::string partition_name(GpuId g, uint32_t pod) const override;
  // Equal requests of different gpu_milli can take different types.
  bool equal_requests_fit_alike() const override { return false; }

  const VgpuState& state() const { return state_; }

 private:
  struct Held {
    int claim_before = 0;
    bool held = false;
  };

  std::span<const PodSpec> pods_;
  const VmSettings& settings_;
  VgpuState state_;
  std::vector<Held> held_;  // per pod
};

}  // namespace slicelab
