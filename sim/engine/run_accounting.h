// What a run measures as it goes, and the summary built from it at the end: usage and allocation
// integrals per GPU model, fragmentation per node, time-series samples, the fill curve.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"
#include "sim/metrics/fragmentation.h"
#include "sim/metrics/reason_table.h"
#include "sim/metrics/run_result.h"
#include "sim/metrics/whole_gpu_fragmentation_memo.h"
#include "sim/prefetch.h"
#include "sim/sharing/sharing_run.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// Contract: the engine reports every change of what a GPU delivers (set_gpu_usage), of what a
// pod holds (pod_allocated) and of a node's free resources (node_changed) at the simulated
// time it happens, and calls advance(t) before each event at t; the integrals are then exact
// (piecewise constant between events). Sums are kept by adding differences, so nothing here
// loops over the cluster per event except the samples.
class RunAccounting {
 public:
  // `target_pods`: the pods FGD's target workload is built from.
  RunAccounting(const ClusterState& cluster, const GpuCatalog& catalog,
                std::span<const PodSpec> target_pods, size_t pods, bool fill);
  // Its fragmentation memo refers to its own target workload.
  RunAccounting(const RunAccounting&) = delete;
  RunAccounting& operator=(const RunAccounting&) = delete;

  // Integrates everything up to t (the sharing run's stranded capacity included).
  void advance(double t, const SharingRun& sharing);
  double now() const { return now_; }
  void start_at(double t0) { t0_ = now_ = t0; }

  void set_gpu_usage(GpuId g, double sm, double memory);
  // GPUs of model `model` allocated (claims as shares of a GPU, summed) changed by `delta`.
  void allocation_changed(uint16_t model, double delta) { model_alloc_[model] += delta; }
  void node_changed(NodeId n);
  // A hint: set_gpu_usage on `gpus` and node_changed(n) come soon.
  void prefetch_change(NodeId n, std::span<const GpuId> gpus) const {
    prefetch_for_write(&gpu_use_[gpus.front()]);
    prefetch_for_write(&gpu_use_[gpus.back()]);
    prefetch_for_write(&node_frag_[n]);
  }
  void placement_attempted() { ++attempts_; }
  void placement_failed();
  void event_done() { ++events_; }
  // A pod was bound to `gpus` of node n: its free resources changed, and a multi-GPU pod on a
  // node with a topology adds its communication quality.
  void pod_bound(NodeId n, std::span<const GpuId> gpus);
  // Fill experiment: a pod's GPU demand arrived, and whether it was served.
  void fill_arrival(double demand_gpus, bool served);
  void take_sample(double t, uint32_t running, uint32_t pending);
  const std::vector<Sample>& samples() const { return samples_; }

  RunSummary summarize(std::span<const PodSpec> pods, std::span<const PodOutcome> outcomes,
                       const ReasonTable& reasons, const SharingRun& sharing) const;
  std::vector<Sample> take_samples() { return std::move(samples_); }
  std::vector<FillPoint> take_fill_curve() { return std::move(fill_curve_); }

 private:
  std::optional<FillSummary> fill_summary() const;

  const ClusterState& cluster_;
  const GpuCatalog& catalog_;
  bool fill_;
  double t0_ = 0, now_ = 0;
  uint64_t events_ = 0, attempts_ = 0;
  std::optional<double> first_failure_t_, first_failure_alloc_;

  // Per GPU: what it delivers, and its model (so that an update reads one cache line, not
  // three arrays). Per GPU model: running sums and their time integrals.
  struct GpuUse {
    double sm = 0, mem = 0;
    uint16_t model = 0;
  };
  std::vector<GpuUse> gpu_use_;
  std::vector<double> model_sm_, model_mem_, model_alloc_;
  std::vector<double> model_sm_int_, model_mem_int_, model_alloc_int_;
  std::vector<size_t> model_gpus_;
  double alloc_int_ = 0, stranded_int_ = 0;

  // FGD's fragmentation, kept per node and refreshed only when a node changes.
  TargetWorkload target_;
  WholeGpuFragmentationMemo frag_memo_{target_};
  std::vector<double> node_frag_;
  std::vector<int> milli_scratch_;
  double frag_total_ = 0, frag_int_ = 0;

  std::vector<double> comm_quality_;  // one per multi-GPU pod placed on a node with a topology
  std::vector<Sample> samples_;
  double arrived_gpus_ = 0, failed_gpus_ = 0;
  std::vector<FillPoint> fill_curve_;
};

}  // namespace slicelab
