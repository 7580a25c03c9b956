// MIG's state for one run behind the engine's sharing seam: the instances of every GPU
// (MigState) and the placement plugin that takes and gives them back.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "sim/modes/mig/mig_plugin.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/modes/mig/mig_state.h"
#include "sim/sharing/sharing_run.h"

namespace slicelab {

class MigRun final : public SharingRun {
 public:
  // `settings` outlives the run (the MigSharing mode holds it).
  MigRun(const RunSetup& setup, const MigSettings& settings);

  RunPlugins plugins() override { return {{&plugin_}, {}, {&plugin_}, {&plugin_}}; }
  std::optional<std::string> never_fits(uint32_t pod) const override {
    return state_.never_fits(pod);
  }
  void pod_left_queue(uint32_t pod) override { state_.pod_left_queue(pod); }
  double start_delay_s(uint32_t pod) const override { return plugin_.start_delay_s(pod); }
  void release(uint32_t pod, std::span<const GpuId> gpus) override { plugin_.release(pod, gpus); }

  // A tenant runs on its instance's SMs only.
  void apply_sm_caps(GpuId g, std::span<const uint32_t> pods,
                     std::span<TenantLoad> loads) const override;
  // Instances isolate memory: only the pod's own instance can be too small for it.
  int64_t partition_memory_mib(GpuId g, uint32_t pod) const override {
    return state_.instance_memory_mib(g, pod);
  }
  std::string partition_name(GpuId g, uint32_t pod) const override {
    return "MIG instance " + state_.instance_name(g, pod);
  }

  double stranded_gpus() const override { return state_.stranded_gpus(); }
  bool equal_requests_fit_alike() const override { return false; }
  // summary.mode_results: mig.* figures: re-partitionings, their GPU-seconds and the stranded
  // share.
  void write_results(RunSummary& summary, double stranded_gpu_s, double gpu_s) const override;

  const MigState& state() const { return state_; }

 private:
  MigState state_;
  MigPlugin plugin_;
};

}  // namespace slicelab
