#include "sim/engine/run_accounting.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/metrics/class_summaries.h"
#include "sim/metrics/distribution.h"
#include "sim/metrics/slo_tally.h"
#include "sim/topology/gpu_topology.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"

namespace slicelab {

RunAccounting::RunAccounting(const ClusterState& cluster, const GpuCatalog& catalog,
                             std::span<const PodSpec> target_pods, size_t pods, bool fill)
    : cluster_(cluster), catalog_(catalog), fill_(fill) {
  const size_t gpus = cluster.gpu_count();
  gpu_use_.resize(gpus);
  for (GpuId g = 0; g < gpus; ++g) gpu_use_[g].model = cluster.model(cluster.node_of(g));
  const size_t m = catalog.models().size();
  model_sm_.assign(m, 0);
  model_mem_.assign(m, 0);
  model_alloc_.assign(m, 0);
  model_sm_int_.assign(m, 0);
  model_mem_int_.assign(m, 0);
  model_alloc_int_.assign(m, 0);
  model_gpus_.assign(m, 0);
  for (NodeId node = 0; node < cluster.node_count(); ++node)
    model_gpus_[cluster.model(node)] += static_cast<size_t>(cluster.gpus_on(node));
  // The FGD paper builds its target from the trace, not from the workload the run replays.
  target_ = TargetWorkload::from_pods(target_pods, catalog);
  node_frag_.assign(cluster.node_count(), 0.0);
  milli_scratch_.resize(static_cast<size_t>(std::max(cluster.max_gpus_per_node(), 1)));
  for (NodeId node = 0; node < cluster.node_count(); ++node) node_changed(node);
  if (fill) fill_curve_.reserve(pods);
}

void RunAccounting::advance(double t, const SharingRun& sharing) {
  const double dt = t - now_;
  if (dt > 0) {
    for (size_t m = 0; m < model_sm_.size(); ++m) {
      model_sm_int_[m] += model_sm_[m] * dt;
      model_mem_int_[m] += model_mem_[m] * dt;
      model_alloc_int_[m] += model_alloc_[m] * dt;
    }
    alloc_int_ += static_cast<double>(cluster_.allocated_units()) * dt;
    frag_int_ += frag_total_ * dt;
    stranded_int_ += sharing.stranded_gpus() * dt;
  }
  now_ = t;
}

void RunAccounting::set_gpu_usage(GpuId g, double sm, double memory) {
  GpuUse& use = gpu_use_[g];
  model_sm_[use.model] += sm - use.sm;
  model_mem_[use.model] += memory - use.mem;
  use.sm = sm;
  use.mem = memory;
}

void RunAccounting::node_changed(NodeId n) {
  const int gpus = cluster_.gpus_on(n);
  const int cap = cluster_.capacity_units();
  const GpuId first = cluster_.first_gpu(n);
  // Every mode but HAMi's counts in a divisor of 1000, where a product is the same number as
  // the quotient without a division per GPU on every bind and unbind.
  if (1000 % cap == 0) {
    const int scale = 1000 / cap;
    for (int i = 0; i < gpus; ++i)
      milli_scratch_[static_cast<size_t>(i)] =
          cluster_.gpu_free_units(first + static_cast<GpuId>(i)) * scale;
  } else {
    for (int i = 0; i < gpus; ++i)
      milli_scratch_[static_cast<size_t>(i)] =
          cluster_.gpu_free_units(first + static_cast<GpuId>(i)) * 1000 / cap;
  }
  const double f =
      frag_memo_(cluster_.cpu_free(n), cluster_.model(n),
                 std::span<const int>(milli_scratch_).first(static_cast<size_t>(gpus)));
  frag_total_ += f - node_frag_[n];
  node_frag_[n] = f;
}

void RunAccounting::pod_bound(NodeId n, std::span<const GpuId> gpus) {
  node_changed(n);
  const GpuTopology* topo = cluster_.topology(n);
  if (topo == nullptr || gpus.size() < 2) return;
  std::array<int, kMaxGpusPerNode> local{};
  for (size_t i = 0; i < gpus.size() && i < local.size(); ++i)
    local[i] = static_cast<int>(gpus[i] - cluster_.first_gpu(n));
  comm_quality_.push_back(communication_quality(
      *topo, std::span<const int>(local).first(std::min(gpus.size(), local.size()))));
}

void RunAccounting::placement_failed() {
  if (first_failure_t_) return;
  first_failure_t_ = now_;
  first_failure_alloc_ = static_cast<double>(cluster_.allocated_units()) /
                         static_cast<double>(std::max<int64_t>(cluster_.total_units(), 1));
}

void RunAccounting::fill_arrival(double demand_gpus, bool served) {
  arrived_gpus_ += demand_gpus;
  if (!served) failed_gpus_ += demand_gpus;
  const double cap = static_cast<double>(cluster_.capacity_units());
  fill_curve_.push_back({arrived_gpus_, static_cast<double>(cluster_.allocated_units()) / cap,
                         frag_total_ / 1000.0, failed_gpus_});
}

void RunAccounting::take_sample(double t, uint32_t running, uint32_t pending) {
  // The loader bounds the samples of a run that ends when its last pod would; queueing can
  // carry it further, so the bound holds here too (docs/scenario-format.md, "Limits").
  if (samples_.size() >= static_cast<size_t>(kMaxSamples))
    throw InputError(fmt::format(
        "the run reached {} time-series samples at {:g}s of simulated time (queueing kept it "
        "going); raise engine.sample_interval or set engine.until",
        kMaxSamples, t));
  const double total = static_cast<double>(std::max<int64_t>(cluster_.total_units(), 1));
  const double gpus = static_cast<double>(std::max<size_t>(cluster_.gpu_count(), 1));
  double sm = 0;
  for (const double v : model_sm_) sm += v;
  // The sums are kept by adding differences, so an idle cluster can read -4e-16: clamp.
  samples_.push_back({t, static_cast<double>(cluster_.allocated_units()) / total,
                      std::max(0.0, frag_total_ / (1000.0 * gpus)), std::max(0.0, sm / gpus),
                      running, pending});
}

std::optional<FillSummary> RunAccounting::fill_summary() const {
  if (!fill_) return std::nullopt;
  FillSummary f;
  f.capacity_gpus = static_cast<double>(cluster_.gpu_count());
  const double capacity = std::max(f.capacity_gpus, 1.0);
  // "At 100%" as the paper's scripts compute it (merge_alloc_discrete.py): the mean over the
  // points whose arrived demand, rounded to a whole percent (half to even, as Python's round),
  // is 100; failing that, those within 99..101.
  auto mean_where = [&](int lo, int hi) {
    double alloc = 0, frag = 0, failed = 0;
    size_t n = 0;
    for (const FillPoint& pt : fill_curve_) {
      const double pct = std::nearbyint(pt.arrived / capacity * 100.0);
      if (pct < lo || pct > hi) continue;
      alloc += pt.allocated, frag += pt.fragmented, failed += pt.failed;
      ++n;
    }
    if (n == 0) return false;
    const double k = static_cast<double>(n) * capacity;
    f.allocated_at_full = alloc / k, f.fragmented_at_full = frag / k, f.failed_at_full = failed / k;
    return true;
  };
  if (!mean_where(100, 100) && !mean_where(99, 101)) {
    // Never near 100%: the first point at or past it, else the last.
    auto full = std::find_if(fill_curve_.begin(), fill_curve_.end(),
                             [&](const FillPoint& pt) { return pt.arrived >= f.capacity_gpus; });
    if (full == fill_curve_.end() && !fill_curve_.empty()) full = fill_curve_.end() - 1;
    if (full != fill_curve_.end()) {
      f.allocated_at_full = full->allocated / capacity;
      f.fragmented_at_full = full->fragmented / capacity;
      f.failed_at_full = full->failed / capacity;
    }
  }
  if (!fill_curve_.empty()) {
    const FillPoint& last = fill_curve_.back();
    f.arrived_at_end = last.arrived / capacity;
    f.allocated_at_end = last.allocated / capacity;
    f.fragmented_at_end = last.fragmented / capacity;
    f.failed_at_end = last.failed / capacity;
  }
  return f;
}

RunSummary RunAccounting::summarize(std::span<const PodSpec> pods,
                                    std::span<const PodOutcome> outcomes,
                                    const ReasonTable& reasons, const SharingRun& sharing) const {
  RunSummary s;
  s.pods = pods.size();
  s.window_start_s = t0_;
  s.window_end_s = now_;
  s.cost_window_start_s = t0_;
  s.cost_window_end_s = now_;
  s.events = events_;
  s.placement_attempts = attempts_;
  s.first_failure_s = first_failure_t_;
  s.allocation_ratio_at_first_failure = first_failure_alloc_;
  const double window = now_ - t0_;
  const double total_units = static_cast<double>(std::max<int64_t>(cluster_.total_units(), 1));
  s.allocation_ratio = window > 0 ? alloc_int_ / (total_units * window) : 0.0;
  const double total_milli =
      1000.0 * static_cast<double>(std::max<size_t>(cluster_.gpu_count(), 1));
  s.fragmentation_ratio =
      window > 0 ? frag_int_ / (total_milli * window) : frag_total_ / total_milli;
  s.fill = fill_summary();

  std::vector<double> isolation;
  SloTally slo;
  for (size_t p = 0; p < pods.size(); ++p) {
    const PodOutcome& o = outcomes[p];
    s.count(o.status);
    if (o.status == PodStatus::kFailed) {
      switch (o.failure) {
        case FailureCause::kNone:
        case FailureCause::kNeighboursMemory:
          ++s.not_placed_reasons["out of memory (neighbours hold the GPU's memory)"];
          ++s.neighbour_failures;
          break;
        case FailureCause::kInstanceMemory:
          ++s.not_placed_reasons["out of memory (more than its MIG instance holds)"];
          ++s.failed_own_memory;
          break;
        case FailureCause::kOvercommittedMemory:
          ++s.not_placed_reasons
                ["out of memory (overcommitted GPU: tenants use more than it holds)"];
          ++s.failed_own_memory;
          break;
        case FailureCause::kOverMemoryCap:
          ++s.not_placed_reasons["out of memory (peak over its own memory limit)"];
          ++s.failed_own_memory;
          break;
        case FailureCause::kClientFault:
          ++s.not_placed_reasons["client fault (modelled)"];
          ++s.failed_faults;
          break;
        case FailureCause::kAllocationRefused:
          ++s.not_placed_reasons
                ["allocation refused by the device plugin (more than 1 shared GPU)"];
          ++s.failed_faults;
          break;
        case FailureCause::kNeighbourFault:
          ++s.not_placed_reasons["MPS neighbour fault"];
          ++s.neighbour_failures;
          break;
        case FailureCause::kProcessFailed:
          ++s.not_placed_reasons["the process failed (exit status, signal or timeout; measured)"];
          ++s.failed_faults;
          break;
      }
    }
    if (o.isolation_error >= 0) isolation.push_back(o.isolation_error);
    if (o.status == PodStatus::kUnschedulable) ++s.not_placed_reasons[reasons[o.reason]];
    if (o.status == PodStatus::kPending) ++s.not_placed_reasons["not placed before the run ended"];
    slo.add(pods[p], o, now_);
  }
  s.slo_pods = slo.pods;
  s.slo_met = slo.met;
  s.slo_undecided = slo.undecided;
  s.slo_attainment = slo.attainment();
  s.per_class = class_summaries(pods, outcomes, t0_, now_);
  std::vector<double> quality = comm_quality_;
  s.communication_quality = distribution_of(quality);
  // One array of values at a time (8 bytes per pod, not 24: a million-pod run's summary is
  // built while its workload and outcomes are held), each in pod order as before.
  std::vector<double> values;
  values.reserve(pods.size());
  for (size_t p = 0; p < pods.size(); ++p) {
    const PodOutcome& o = outcomes[p];
    if (o.start_s >= 0 && o.status != PodStatus::kFailed)
      values.push_back(o.start_s - pods[p].arrival_s);
  }
  s.queue_delay_s = distribution_of(values);
  values.clear();
  for (size_t p = 0; p < pods.size(); ++p)
    if (outcomes[p].status == PodStatus::kCompleted)
      values.push_back(outcomes[p].finish_s - pods[p].arrival_s);
  s.jct_s = distribution_of(values);
  values.clear();
  for (size_t p = 0; p < pods.size(); ++p) {
    const PodOutcome& o = outcomes[p];
    if (o.status == PodStatus::kCompleted)
      values.push_back((o.finish_s - pods[p].arrival_s) / o.solo_s);
  }
  s.slowdown = distribution_of(values);
  s.isolation_error = distribution_of(isolation);

  const auto& models = catalog_.models();
  double sm_total = 0, mem_total = 0;
  size_t gpus_total = 0;
  for (size_t m = 0; m < models.size(); ++m) {
    if (model_gpus_[m] == 0) continue;
    ModelUsage u;
    u.model = models[m].name;
    u.gpus = model_gpus_[m];
    const double gpu_seconds = static_cast<double>(u.gpus) * window;
    u.sm_utilization = gpu_seconds > 0 ? model_sm_int_[m] / gpu_seconds : 0;
    u.memory_utilization = gpu_seconds > 0 ? model_mem_int_[m] / gpu_seconds : 0;
    u.allocation_ratio = gpu_seconds > 0 ? model_alloc_int_[m] / gpu_seconds : 0;
    u.gpu_hours_provisioned = gpu_seconds / 3600.0;
    u.gpu_hours_allocated = model_alloc_int_[m] / 3600.0;
    u.price_per_hour = models[m].price_per_hour;
    u.cost_usd = u.gpu_hours_provisioned * u.price_per_hour;
    sm_total += model_sm_int_[m];
    mem_total += model_mem_int_[m];
    gpus_total += u.gpus;
    s.gpu_hours_provisioned += u.gpu_hours_provisioned;
    s.gpu_hours_allocated += u.gpu_hours_allocated;
    s.cost_usd += u.cost_usd;
    s.per_model.push_back(std::move(u));
  }
  const double all_gpu_seconds = static_cast<double>(gpus_total) * window;
  s.sm_utilization = all_gpu_seconds > 0 ? sm_total / all_gpu_seconds : 0;
  sharing.write_results(s, stranded_int_, all_gpu_seconds);
  s.memory_utilization = all_gpu_seconds > 0 ? mem_total / all_gpu_seconds : 0;
  return s;
}

}  // namespace slicelab
