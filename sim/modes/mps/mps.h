// NVIDIA MPS: up to 48 clients share one GPU's SMs at once, each held to an active thread
// percentage and a pinned memory limit; memory bandwidth is shared and faults are not isolated.
#pragma once

#include <memory>

#include "sim/modes/mps/mps_settings.h"
#include "sim/sharing/interference_model.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

class Mps final : public SharingMode {
 public:
  static constexpr int kMaxClients = 48;  // Volta and newer
  // Per-pod limits: the smallest share a client is counted as (1000 / 48, rounded up).
  static constexpr int kMinClaim = (1000 + kMaxClients - 1) / kMaxClients;

  struct Config {
    // > 0: the device plugin's N replicas, each 100/N % of threads and 1/N of memory.
    // 0: per pod, thread percentage gpu_milli / 10 and pinned memory its gpu_memory_mib.
    int replicas = 0;
    double fault_propagation = 0.5;
    double client_fault_probability = 0.0;
    InterferenceCoefficients interference{};
  };
  explicit Mps(Config c) : cfg_(c) {}

  std::string_view kind() const override { return "mps"; }
  std::string describe() const override;
  int capacity_units() const override { return cfg_.replicas > 0 ? cfg_.replicas : 1000; }
  int claim_units(int gpu_milli) const override {
    if (cfg_.replicas > 0) return 1;
    return gpu_milli < kMinClaim ? kMinClaim : gpu_milli;
  }
  int max_tenants() const override { return cfg_.replicas > 0 ? cfg_.replicas : kMaxClients; }
  // Pinned limits hold each client to its own memory; the engine still fails a newcomer whose
  // limit does not fit beside its neighbours' (per-pod limits can oversubscribe the GPU).
  bool isolates_memory() const override { return false; }
  // Threads: tenant i may use min(sm_i, t_i) of the SMs, t_i its thread share; max-min fair
  // if those exceed the GPU; then divided by the interference factor f_i.
  // Bound and promise: min(t_i, sm_i); the GPU's whole time is shared.
  GpuTerms declare(std::span<const TenantLoad> tenants,
                   std::span<TenantTerms> terms) const override;
  int64_t memory_limit_mib(int64_t request_mib, int64_t gpu_memory_mib) const override {
    return cfg_.replicas > 0 ? gpu_memory_mib / cfg_.replicas : request_mib;
  }
  double fault_propagation() const override { return cfg_.fault_propagation; }
  double client_fault_probability() const override { return cfg_.client_fault_probability; }

  const Config& config() const { return cfg_; }

 private:
  Config cfg_;
};

// The registry's factory (sim/modes/mode_registry.cc).
std::unique_ptr<SharingMode> make_mps_mode(const SharingConfig& config);

}  // namespace slicelab
