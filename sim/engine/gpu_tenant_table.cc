#include "sim/engine/gpu_tenant_table.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>

namespace slicelab {
namespace {
constexpr uint32_t kNoPod = UINT32_MAX;
constexpr uint32_t kNoVar = UINT32_MAX;
constexpr uint32_t kNoSlot = UINT32_MAX;
}  // namespace

TenantLoad tenant_load(const PodRequest& r, const WorkloadClass* wc, int capacity_units) {
  TenantLoad l;
  l.sm_demand = static_cast<double>(r.gpu_milli) / 1000.0;
  l.memory_mib = r.gpu_memory_mib;
  l.cap = r.gpu_count > 0 ? static_cast<double>(r.claim_units) / static_cast<double>(capacity_units)
                          : 1.0;
  if (wc != nullptr) {
    // A notebook's demand over its active and idle periods, as its neighbours meet it on average
    // (the serving model takes its periods one by one: ServiceReplicas::serve_interval).
    l.sm_demand = wc->sm * wc->duty();
    l.bandwidth = wc->bandwidth;
    l.launch_khz = wc->launch_khz;
  }
  return l;
}

GpuTenantTable::GpuTenantTable(const SharingMode& mode, const ClusterState& cluster)
    : mode_(mode),
      cluster_(cluster),
      max_tenants_(static_cast<size_t>(mode.max_tenants())),
      gpus_per_slot_(static_cast<size_t>(std::max(cluster.max_gpus_per_node(), 1))),
      solver_(static_cast<size_t>(kMaxGpusPerNode)) {
  assert(max_tenants_ <= static_cast<size_t>(kMaxTenantsPerGpu));
  const size_t gpus = cluster.gpu_count();
  pod_.assign(gpus * max_tenants_, kNoPod);
  count_.assign(gpus, 0);
  const auto most_pods = static_cast<size_t>(kMaxGpusPerNode) * max_tenants_;
  recomputed_.reserve(static_cast<size_t>(kMaxGpusPerNode));
  pods_.reserve(most_pods);
  rates_.resize(most_pods);
  errors_.resize(most_pods);
}

void GpuTenantTable::prepare(size_t pods) {
  slot_of_.assign(pods, kNoSlot);
}

uint32_t GpuTenantTable::start(uint32_t pod, std::span<const GpuId> gpus, const TenantLoad& load,
                               double sm_use, double speed) {
  assert(gpus.size() <= gpus_per_slot_);
  uint32_t s = 0;
  if (free_.empty()) {
    s = static_cast<uint32_t>(live_.size());
    live_.emplace_back();
    gpus_.resize(gpus_.size() + gpus_per_slot_);
  } else {
    s = free_.back();
    free_.pop_back();
  }
  slot_of_[pod] = s;
  live_[s] = Tenant{load, sm_use, speed, 0.0, -1.0, kNoVar, pod, static_cast<uint8_t>(gpus.size())};
  std::copy(gpus.begin(), gpus.end(),
            gpus_.begin() + static_cast<std::ptrdiff_t>(s * gpus_per_slot_));
  return s;
}

void GpuTenantTable::retire(uint32_t pod) {
  free_.push_back(slot_of_[pod]);
  slot_of_[pod] = kNoSlot;
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
    }
    pod_[base + n - 1] = kNoPod;
    --count_[g];
    return;
  }
}

void GpuTenantTable::recompute(std::span<const GpuId> gpus, const SharingRun& run,
                               RateChangeListener& listener) {
  recomputed_.clear();
  if (gpus.empty()) return;
  // The GPUs of one node by their index on it; a pod's GPUs are all on one node.
  static_assert(kMaxGpusPerNode <= 64, "one bit per GPU of a node");
  const GpuId first = cluster_.first_gpu(cluster_.node_of(gpus.front()));
  uint64_t seen = 0;
  auto visit = [&](GpuId g) {
    const uint64_t bit = uint64_t{1} << (g - first);
    if (seen & bit) return;
    seen |= bit;
    recomputed_.push_back(g);
  };
  for (const GpuId seed : gpus) {
    if (seen & (uint64_t{1} << (seed - first))) continue;  // in a component solved already
    const size_t begin = recomputed_.size();
    visit(seed);
    for (size_t i = begin; i < recomputed_.size(); ++i)
      for (const uint32_t p : tenants(recomputed_[i]))
        if (live_[slot_of_[p]].gpu_count > 1)
          for (const GpuId h : gpus_of(p)) visit(h);
    solve(std::span<const GpuId>(recomputed_).subspan(begin), run, listener);
  }
}

bool GpuTenantTable::solve_alone(std::span<const GpuId> component, const SharingRun& run) {
  const auto first = tenants(component.front());
  if (first.size() != 1) return false;
  const uint32_t p = first.front();
  for (const GpuId g : component.subspan(1)) {
    const auto on_g = tenants(g);
    if (on_g.size() != 1 || on_g.front() != p) return false;
  }
  const TenantLoad& load = live_[slot_of_[p]].load;
  for (const GpuId g : component) {
    loads_[0] = load;
    run.apply_sm_caps(g, std::span(&p, 1), std::span(loads_).first(1));
    if (g != component.front() && !(loads_[0] == loads_[1])) return false;
    loads_[1] = loads_[0];
  }
  pods_.assign(1, p);
  for (size_t i = 0; i < alone_used_; ++i) {
    const AloneSolution& a = alone_[i];
    if (a.gpus == component.size() && a.load == loads_[1]) {
      rates_[0] = a.rate;
      errors_[0] = a.error;
      return true;
    }
  }
  solver_.clear();
  const uint32_t var = 0;
  for (size_t i = 0; i < component.size(); ++i)
    solver_.add_gpu(mode_, std::span(loads_).subspan(1, 1), std::span(&var, 1));
  solver_.solve(std::span(rates_).first(1), std::span(errors_).first(1));
  alone_[alone_next_] = AloneSolution{loads_[1], component.size(), rates_[0], errors_[0]};
  alone_next_ = (alone_next_ + 1) % alone_.size();
  if (alone_used_ < alone_.size()) ++alone_used_;
  return true;
}

void GpuTenantTable::solve(std::span<const GpuId> component, const SharingRun& run,
                           RateChangeListener& listener) {
  if (solve_alone(component, run)) return apply(1, listener);
  solver_.clear();
  pods_.clear();
  for (const GpuId g : component) {
    const auto on_g = tenants(g);
    const size_t n = on_g.size();
    if (n == 0) continue;  // then it is alone in its component
    for (size_t k = 0; k < n; ++k) {
      const uint32_t p = on_g[k];
      Tenant& t = live_[slot_of_[p]];
      loads_[k] = t.load;
      if (t.var == kNoVar) {
        t.var = static_cast<uint32_t>(pods_.size());
        pods_.push_back(p);
      }
      vars_[k] = t.var;
    }
    run.apply_sm_caps(g, on_g, std::span(loads_).first(n));
    solver_.add_gpu(mode_, std::span(loads_).first(n), std::span(vars_).first(n));
  }
  if (pods_.empty()) return;
  const size_t vars = pods_.size();
  solver_.solve(std::span(rates_).first(vars), std::span(errors_).first(vars));
  for (const uint32_t p : pods_) live_[slot_of_[p]].var = kNoVar;
  apply(vars, listener);
}

// The solved rates_ and errors_ of pods_ become theirs.
void GpuTenantTable::apply(size_t vars, RateChangeListener& listener) {
  for (size_t v = 0; v < vars; ++v) {
    const uint32_t p = pods_[v];
    Tenant& t = live_[slot_of_[p]];
    // The error accrued so far is at the old value; the new one holds from now on.
    if (errors_[v] != t.error) {
      listener.before_rate_change(p);
      t.error = errors_[v];
    }
    const double r = rates_[v] * t.speed;
    if (r == t.rate) continue;
    listener.before_rate_change(p);
    t.rate = r;
    listener.rate_changed(p);
  }
}

GpuUsage GpuTenantTable::usage(GpuId g) const {
  // SM time the GPU delivers: each tenant's demand at the pace it really runs, which for a
  // multi-GPU pod is that of its slowest GPU.
  double sm = 0;
  for (const uint32_t p : tenants(g)) {
    const Tenant& t = live_[slot_of_[p]];
    sm += t.sm_use * (t.rate / t.speed);
  }
  const int64_t mem_cap = cluster_.gpu_memory_capacity(cluster_.node_of(g));
  const double mem = mem_cap > 0 ? std::min(1.0, static_cast<double>(cluster_.gpu_memory_used(g)) /
                                                     static_cast<double>(mem_cap))
                                 : 0.0;
  return {std::min(sm, 1.0), mem};
}

}  // namespace slicelab
