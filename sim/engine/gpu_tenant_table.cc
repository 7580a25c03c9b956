#include "sim/engine/gpu_tenant_table.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>

namespace slicelab {
namespace {
constexpr uint32_t kNoPod = UINT32_MAX;
}  // namespace

GpuTenantTable::GpuTenantTable(const SharingMode& mode, const ClusterState& cluster,
                               const PodGpus& pod_gpus)
    : mode_(mode),
      cluster_(cluster),
      pod_gpus_(pod_gpus),
      max_tenants_(static_cast<size_t>(mode.max_tenants())) {
  assert(max_tenants_ <= static_cast<size_t>(kMaxTenantsPerGpu));
  const size_t gpus = cluster.gpu_count();
  pod_.assign(gpus * max_tenants_, kNoPod);
  slot_rate_.assign(gpus * max_tenants_, 0.0);
  count_.assign(gpus, 0);
  std::iota(vars_.begin(), vars_.end(), 0U);
}

void GpuTenantTable::prepare(std::span<const PodRequest> requests) {
  const size_t n = requests.size();
  load_.resize(n);
  sm_use_.resize(n);
  for (size_t p = 0; p < n; ++p) sm_use_[p] = static_cast<double>(requests[p].gpu_milli) / 1000.0;
  speed_.assign(n, 1.0);
  rate_.assign(n, 0.0);
  error_.assign(n, -1.0);
}

void GpuTenantTable::start(uint32_t pod, double speed) {
  speed_[pod] = speed;
  rate_[pod] = 0;
}

void GpuTenantTable::add(GpuId g, uint32_t pod) {
  const size_t base = g * max_tenants_;
  assert(count_[g] < max_tenants_);
  pod_[base + count_[g]++] = pod;
}

void GpuTenantTable::remove(GpuId g, uint32_t pod) {
  const size_t base = g * max_tenants_;
  const size_t n = count_[g];
  for (size_t k = 0; k < n; ++k) {
    if (pod_[base + k] != pod) continue;
    // Keep arrival order of the others: the OOM rule and ties depend on it.
    for (size_t j = k + 1; j < n; ++j) {
      pod_[base + j - 1] = pod_[base + j];
      slot_rate_[base + j - 1] = slot_rate_[base + j];
    }
    pod_[base + n - 1] = kNoPod;
    --count_[g];
    return;
  }
}

void GpuTenantTable::recompute_gpu(GpuId g, const SharingRun& run, RateChangeListener& listener) {
  const size_t base = g * max_tenants_;
  const size_t n = count_[g];
  if (n > 0) {
    for (size_t k = 0; k < n; ++k) loads_[k] = load_[pod_[base + k]];
    run.apply_sm_caps(g, tenants(g), std::span(loads_).first(n));
    solver_.clear();
    solver_.add_gpu(mode_, std::span(loads_).first(n), std::span(vars_).first(n));
    solver_.solve(std::span(rates_).first(n), std::span(errors_).first(n));
    std::copy_n(rates_.begin(), n, slot_rate_.begin() + static_cast<std::ptrdiff_t>(base));
  }
  for (size_t k = 0; k < n; ++k) {
    const uint32_t p = pod_[base + k];
    // The error accrued so far is at the old value; the new one holds from now on.
    if (errors_[k] != error_[p]) {
      listener.before_rate_change(p);
      error_[p] = errors_[k];
    }
    update_pod_rate(p, listener);
  }
}

void GpuTenantTable::update_pod_rate(uint32_t p, RateChangeListener& listener) {
  // A multi-GPU pod moves at the pace of its slowest GPU (synchronous steps).
  double r = std::numeric_limits<double>::infinity();
  for (const GpuId g : pod_gpus_.of(p)) {
    const size_t base = g * max_tenants_;
    for (size_t k = 0; k < count_[g]; ++k)
      if (pod_[base + k] == p) r = std::min(r, slot_rate_[base + k]);
  }
  if (r == std::numeric_limits<double>::infinity()) r = 1.0;
  r *= speed_[p];
  if (r == rate_[p]) return;
  listener.before_rate_change(p);
  rate_[p] = r;
  listener.rate_changed(p);
}

GpuUsage GpuTenantTable::usage(GpuId g) const {
  // SM time the GPU delivers: each tenant's demand at the pace it really runs, which for a
  // multi-GPU pod is that of its slowest GPU.
  double sm = 0;
  for (const uint32_t p : tenants(g)) sm += sm_use_[p] * (rate_[p] / speed_[p]);
  const int64_t mem_cap = cluster_.gpu_memory_capacity(cluster_.node_of(g));
  const double mem = mem_cap > 0 ? std::min(1.0, static_cast<double>(cluster_.gpu_memory_used(g)) /
                                                     static_cast<double>(mem_cap))
                                 : 0.0;
  return {std::min(sm, 1.0), mem};
}

}  // namespace slicelab
