// The one GPU rate solver: every sharing mode declares, per GPU, the time its tenants share and
// each tenant's bound, promise and overhead; this turns them into progress rates and errors.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/sharing/sharing_mode.h"
#include "sim/sharing/tenant_load.h"

namespace slicelab {

// Max-min fair shares of GPU time in the manner of SimGrid's lmm: one variable per pod (its
// share of each GPU it spans, the same on all of them), one constraint per GPU (summed shares
// within its capacity), each variable bounded by its demand and the modes' bounds. A pod held
// back on one GPU therefore leaves its unused share to its neighbours on the others.
//
// Then, per pod: rate = (share / demand) / overhead / f, with f the interference factor
// (sim/sharing/interference_model.h) and, for a pod on several GPUs, the smallest of its
// GPUs' values (it moves at its slowest GPU's pace). Isolation error: |promised - demand x
// rate|, the largest over its GPUs that promise a share, or -1 where none does.
// docs/sharing-models.md states every formula.
class GpuRateSolver {
 public:
  // Room for problems of up to `max_gpus` GPUs of kMaxTenantsPerGpu tenants, so that solving
  // allocates nothing (a multi-GPU pod spans GPUs of one node).
  explicit GpuRateSolver(size_t max_gpus = 1);

  void clear();
  // Adds one GPU as `mode` declares it for `tenants`; vars[k] is the variable of tenant k,
  // numbered by the caller from 0. A variable on several GPUs is one pod spanning them.
  void add_gpu(const SharingMode& mode, std::span<const TenantLoad> tenants,
               std::span<const uint32_t> vars);
  // The same with terms already declared (tests; the calibration fit).
  void add_gpu(const GpuTerms& gpu, std::span<const TenantLoad> tenants,
               std::span<const TenantTerms> terms, std::span<const uint32_t> vars);
  // rate[v] (1 = the pod's solo speed) and error[v] for variables 0..rate.size()-1; every
  // variable must have been used by some GPU.
  void solve(std::span<double> rate, std::span<double> error);

  size_t gpus() const { return gpu_begin_.size(); }

 private:
  struct Use {
    uint32_t var = 0;
    uint32_t gpu = 0;
    double demand = 0;     // the tenant's sm_demand
    double bound = 0;      // min(demand, declared bound)
    double promised = -1;  // declared
    double overhead = 1;
    double interference = 1;
  };
  void solve_one_gpu(std::span<double> share);
  void progressive_filling(size_t vars, std::span<double> share);

  std::vector<Use> uses_;
  std::vector<uint32_t> gpu_begin_;  // first use of each GPU; uses_ is grouped by GPU
  std::vector<double> capacity_;
  std::vector<TenantTerms> terms_;  // scratch for one GPU's declaration
  // Scratch for solve(), per variable and per GPU.
  std::vector<double> share_, bound_, left_;
  std::vector<uint32_t> active_on_;
  std::vector<uint8_t> frozen_;
};

// One GPU on its own: rates[k] and errors[k] of tenants[k] (every tenant its own variable).
void solve_gpu_rates(const SharingMode& mode, std::span<const TenantLoad> tenants,
                     std::span<double> rates, std::span<double> errors);

}  // namespace slicelab
