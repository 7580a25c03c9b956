// A sharing mode configured by the NVIDIA device plugin's config file: the time-slice or MPS mode
// it maps to, plus the plugin's own rules (failRequestsGreaterThanOne) and naming in describe().
#pragma once

#include <memory>

#include "sim/sharing/device_plugin_settings.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

// Forwards everything to the mode the config maps to; only describe() and max_gpus_per_pod()
// are its own, so results match the plain mode's wherever the plugin's rules do not bite.
class DevicePluginSharing final : public SharingMode {
 public:
  DevicePluginSharing(std::unique_ptr<SharingMode> inner,
                      std::shared_ptr<const DevicePluginSettings> settings)
      : inner_(std::move(inner)), settings_(std::move(settings)) {}

  std::string_view kind() const override { return inner_->kind(); }
  std::string describe() const override;
  int capacity_units() const override { return inner_->capacity_units(); }
  int claim_units(int gpu_milli) const override { return inner_->claim_units(gpu_milli); }
  int max_tenants() const override { return inner_->max_tenants(); }
  bool isolates_memory() const override { return inner_->isolates_memory(); }
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override {
    return inner_->declare(tenants, terms);
  }
  int64_t memory_limit_mib(int64_t request_mib, int64_t gpu_memory_mib) const override {
    return inner_->memory_limit_mib(request_mib, gpu_memory_mib);
  }
  double fault_propagation() const override { return inner_->fault_propagation(); }
  double client_fault_probability() const override { return inner_->client_fault_probability(); }
  int max_gpus_per_pod() const override {
    return settings_->fail_requests_greater_than_one && settings_->replicas > 0 ? 1 : 0;
  }
  std::unique_ptr<SharingRun> start_run(const RunSetup& setup) const override;

 private:
  std::unique_ptr<SharingMode> inner_;
  std::shared_ptr<const DevicePluginSettings> settings_;
};

}  // namespace slicelab
