// Time-slicing as NVIDIA's device plugin offers it: each GPU is advertised as N replicas, one
// per pod; contexts take turns, memory is not isolated, and oversubscription costs switch time.
#pragma once

#include <memory>

#include "sim/modes/time_slice/time_slice_settings.h"
#include "sim/sharing/interference_model.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class TimeSlice final : public SharingMode {
 public:
  // overhead: share of GPU time lost to context switches while tenants' demand exceeds the GPU.
  // interference: this mode's coefficients (docs/sharing-models.md); zero keeps the rates above.
  // time_slice_s: how long a context holds the GPU per turn (request latency only).
  TimeSlice(int replicas, double context_switch_overhead,
            InterferenceCoefficients interference = {}, double time_slice_s = 0.002)
      : replicas_(replicas),
        overhead_(context_switch_overhead),
        interference_(interference),
        time_slice_s_(time_slice_s) {}

  std::string_view kind() const override { return "time-slice"; }
  std::string describe() const override;
  int capacity_units() const override { return replicas_; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return replicas_; }
  bool isolates_memory() const override { return false; }
  // Summed demand within the GPU: everyone at solo speed. Beyond it: max-min fair shares of
  // (1 - overhead) of the GPU, so rate_i = share_i / demand_i. Either way divided by the
  // interference factor f_i when the calibration gives time-slicing coefficients.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  // One slice, and a switch whose share of slice + switch is the mode's overhead:
  // switch = slice x overhead / (1 - overhead).
  TurnWait turn_wait() const override {
    return {time_slice_s_, time_slice_s_ * overhead_ / (1.0 - overhead_)};
  }

  int replicas() const { return replicas_; }
  double overhead() const { return overhead_; }

 private:
  int replicas_;
  double overhead_;
  InterferenceCoefficients interference_;
  double time_slice_s_;
};

// The registry's factory (sim/modes/mode_registry.cc).
std::unique_ptr<SharingMode> make_time_slice_mode(const SharingConfig& config);

}  // namespace slicelab
