#include "sim/sharing/gpu_rate_solver.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

#include "workloads/input_limits.h"

namespace slicelab {

GpuRateSolver::GpuRateSolver(size_t max_gpus) {
  const size_t uses = std::max<size_t>(max_gpus, 1) * static_cast<size_t>(kMaxTenantsPerGpu);
  uses_.reserve(uses);
  gpu_begin_.reserve(max_gpus);
  capacity_.reserve(max_gpus);
  terms_.resize(static_cast<size_t>(kMaxTenantsPerGpu));
  share_.reserve(uses);
  bound_.reserve(uses);
  frozen_.reserve(uses);
  left_.reserve(max_gpus);
  active_on_.reserve(max_gpus);
}

void GpuRateSolver::clear() {
  uses_.clear();
  gpu_begin_.clear();
  capacity_.clear();
}

void GpuRateSolver::add_gpu(const SharingMode& mode, std::span<const TenantLoad> tenants,
                            std::span<const uint32_t> vars) {
  assert(tenants.size() <= terms_.size());
  const auto terms = std::span(terms_).first(tenants.size());
  std::fill(terms.begin(), terms.end(), TenantTerms{});
  const GpuTerms gpu = mode.declare(tenants, terms);
  add_gpu(gpu, tenants, terms, vars);
}

void GpuRateSolver::add_gpu(const GpuTerms& gpu, std::span<const TenantLoad> tenants,
                            std::span<const TenantTerms> terms, std::span<const uint32_t> vars) {
  assert(tenants.size() == terms.size() && tenants.size() == vars.size());
  const auto g = static_cast<uint32_t>(gpu_begin_.size());
  gpu_begin_.push_back(static_cast<uint32_t>(uses_.size()));
  capacity_.push_back(gpu.capacity);
  for (size_t k = 0; k < tenants.size(); ++k) {
    Use u;
    u.var = vars[k];
    u.gpu = g;
    u.demand = tenants[k].sm_demand;
    u.bound = std::min(u.demand, terms[k].bound);
    u.promised = terms[k].promised;
    u.overhead = terms[k].overhead;
    u.interference = interference_factor(gpu.interference, tenants, k);
    uses_.push_back(u);
  }
}

// One GPU: water-filling from the smallest bound up (each tenant gets its bound or, once the
// equal share of what is left is smaller, every remaining tenant gets that share).
void GpuRateSolver::solve_one_gpu(std::span<double> share) {
  const size_t n = uses_.size();
  const double capacity = capacity_.front();
  double total = 0;
  for (const Use& u : uses_) total += u.bound;
  if (total <= capacity) {
    for (size_t k = 0; k < n; ++k) share[k] = uses_[k].bound;
    return;
  }
  std::array<unsigned char, kMaxTenantsPerGpu> order_store{};
  assert(n <= order_store.size());
  auto order = std::span(order_store).first(n);
  std::iota(order.begin(), order.end(), static_cast<unsigned char>(0));
  std::sort(order.begin(), order.end(), [&](unsigned char a, unsigned char b) {
    return uses_[a].bound < uses_[b].bound || (uses_[a].bound == uses_[b].bound && a < b);
  });
  double left = capacity;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    const double equal = left / static_cast<double>(n - k);
    if (uses_[i].bound <= equal) {
      share[i] = uses_[i].bound;
      left -= uses_[i].bound;
    } else {
      for (size_t j = k; j < n; ++j) share[order[j]] = equal;
      return;
    }
  }
}

// Several GPUs: every unfrozen variable rises at the same level; a variable stops at its bound
// (the smallest over its GPUs) and all variables of a GPU stop when the GPU is full.
void GpuRateSolver::progressive_filling(size_t vars, std::span<double> share) {
  const size_t gpus = gpu_begin_.size();
  bound_.assign(vars, std::numeric_limits<double>::infinity());
  frozen_.assign(vars, 0);
  for (const Use& u : uses_) bound_[u.var] = std::min(bound_[u.var], u.bound);
  left_.assign(capacity_.begin(), capacity_.end());
  size_t active = vars;
  while (active > 0) {
    active_on_.assign(gpus, 0);
    for (const Use& u : uses_)
      if (!frozen_[u.var]) ++active_on_[u.gpu];
    double level = std::numeric_limits<double>::infinity();
    for (size_t v = 0; v < vars; ++v)
      if (!frozen_[v]) level = std::min(level, bound_[v]);
    for (size_t g = 0; g < gpus; ++g)
      if (active_on_[g] > 0 && capacity_[g] < GpuTerms::kUnlimited)
        level = std::min(level, std::max(0.0, left_[g]) / active_on_[g]);
    // Freeze what stops at this level: bounded variables, then every variable of a full GPU.
    for (size_t v = 0; v < vars; ++v)
      if (!frozen_[v] && bound_[v] <= level) {
        share[v] = bound_[v];
        frozen_[v] = 2;
      }
    for (size_t g = 0; g < gpus; ++g) {
      if (active_on_[g] == 0 || capacity_[g] >= GpuTerms::kUnlimited) continue;
      if (std::max(0.0, left_[g]) / active_on_[g] > level) continue;
      const uint32_t end = g + 1 < gpus ? gpu_begin_[g + 1] : static_cast<uint32_t>(uses_.size());
      for (uint32_t k = gpu_begin_[g]; k < end; ++k)
        if (!frozen_[uses_[k].var]) {
          share[uses_[k].var] = level;
          frozen_[uses_[k].var] = 2;
        }
    }
    // What the newly frozen take leaves each GPU.
    for (const Use& u : uses_)
      if (frozen_[u.var] == 2) left_[u.gpu] -= share[u.var];
    for (size_t v = 0; v < vars; ++v)
      if (frozen_[v] == 2) {
        frozen_[v] = 1;
        --active;
      }
  }
}

void GpuRateSolver::solve(std::span<double> rate, std::span<double> error) {
  const size_t vars = rate.size();
  assert(error.size() == vars);
  share_.assign(std::max(vars, uses_.size()), 0.0);
  const bool one_gpu = gpu_begin_.size() == 1;
  // One GPU: each tenant is its own variable (share_ per use); else per variable.
  if (one_gpu)
    solve_one_gpu(share_);
  else
    progressive_filling(vars, share_);
  std::fill(rate.begin(), rate.end(), std::numeric_limits<double>::infinity());
  std::fill(error.begin(), error.end(), -1.0);
  for (size_t k = 0; k < uses_.size(); ++k) {
    const Use& u = uses_[k];
    const double s = one_gpu ? share_[k] : share_[u.var];
    const double base = u.demand > 0 ? s / u.demand : 1.0;
    rate[u.var] = std::min(rate[u.var], base / u.overhead / u.interference);
  }
  for (const Use& u : uses_) {
    if (u.promised < 0) continue;
    error[u.var] = std::max(error[u.var], std::abs(u.promised - u.demand * rate[u.var]));
  }
}

void solve_gpu_rates(const SharingMode& mode, std::span<const TenantLoad> tenants,
                     std::span<double> rates, std::span<double> errors) {
  std::array<uint32_t, kMaxTenantsPerGpu> vars{};
  assert(tenants.size() <= vars.size());
  std::iota(vars.begin(), vars.end(), 0U);
  GpuRateSolver solver(1);
  solver.add_gpu(mode, tenants, std::span(vars).first(tenants.size()));
  solver.solve(rates, errors);
}

}  // namespace slicelab
