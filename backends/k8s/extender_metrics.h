// The extender's /metrics series: requests and latency per verb, decisions, GPU allocation per
// node and GPU under HAMi's names and labels (so HAMi's dashboards work), and shadow figures.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>

#include "backends/k8s/gpu_allocation_snapshot.h"
#include "backends/k8s/prometheus_registry.h"

namespace slicelab::k8s {

// What one extender call decided, counted in slicelab_extender_decisions_total{result}.
enum class DecisionResult {
  kFeasible,       // filter kept at least one node
  kUnschedulable,  // filter kept no node
  kPrioritized,    // prioritize scored the nodes (shadow mode's only decision)
  kBound,          // bind recorded the GPUs and posted the Binding
  kBindFailed,     // bind found the GPUs taken or the API server refused
  kRejected,       // the request was malformed (answered with an error result or a 4xx)
};
std::string_view decision_result_name(DecisionResult r);

class ExtenderMetrics {
 public:
  // Registers every family in `registry`, which must outlive this object.
  explicit ExtenderMetrics(MetricRegistry& registry);

  // `verb`: "filter", "prioritize", "bind", "preempt"; any other path counts as "other". Lock
  // free once a (verb, status) pair has been seen.
  void record_request(std::string_view verb, int http_status, double seconds);
  void record_decision(DecisionResult result);
  // Replaces the per-GPU gauges: GPUs and nodes that are gone leave the exposition. The snapshot
  // is kept as it is and the gauges' lines are written from it at each scrape, straight into the
  // exposition (no structure per series).
  void update_gpu_allocation(GpuAllocationSnapshot snapshot);
  void update_shadow(const ShadowSnapshot& figures);
  void update_cluster(const ClusterFigures& figures);
  // `kind`: "node" or "pod" (anything else is ignored).
  void update_watch(std::string_view kind, const WatchFigures& figures);
  void update_decision_log(const DecisionLogFigures& figures);
  void update_resident_memory(int64_t bytes);

  // The two halves of record_request, for a server that times its handlers but counts every
  // answer (refused bodies and unknown paths included) in one place.
  void observe_duration(std::string_view verb, double seconds);
  void count_request(std::string_view verb, int http_status);

  static constexpr std::array<std::string_view, 5> kVerbs = {"filter", "prioritize", "bind",
                                                             "preempt", "other"};
  // Request latency buckets in seconds: the extender aims at 2 ms; kube-scheduler gives up at 5 s.
  static constexpr std::array<double, 14> kLatencyBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};
  // HAMi's scheduler wraps its collector with this constant label (cmd/scheduler/metrics.go).
  static constexpr std::string_view kHamiZone = "vGPU";

 private:
  static constexpr int kStatusCodes = 600;
  static size_t verb_index(std::string_view verb);
  void set_gpu_collectors();

  CounterFamily& requests_;
  HistogramFamily& duration_;
  CounterFamily& decisions_;
  std::array<Histogram*, kVerbs.size()> duration_by_verb_{};
  std::array<Counter*, 6> decision_by_result_{};
  // Counters per (verb, HTTP status), filled on first use so that the common path is one load.
  std::array<std::array<std::atomic<Counter*>, kStatusCodes>, kVerbs.size()> request_by_code_{};

  GaugeFamily& shadow_fragmented_;
  GaugeFamily& shadow_placeable_;
  CounterFamily& shadow_pods_;
  CounterFamily& shadow_bound_;
  GaugeFamily& ready_;
  GaugeFamily& nodes_;
  GaugeFamily& pods_;
  CounterFamily& objects_rejected_;
  CounterFamily& watch_lists_;
  CounterFamily& watch_expired_;
  CounterFamily& watch_broken_;
  CounterFamily& watch_failures_;
  CounterFamily& record_lines_;
  CounterFamily& record_dropped_;
  CounterFamily& record_errors_;
  GaugeFamily& resident_memory_;
  // The latest GPU allocation, read by the collected families below at each scrape.
  std::shared_ptr<const GpuAllocationSnapshot> gpus() const;
  mutable std::mutex gpus_mutex_;
  std::shared_ptr<const GpuAllocationSnapshot> gpus_;
  // HAMi's per-GPU and per-container families, registered last: an exposition over its size
  // limit leaves these out before the small families above (whole families that do not fit are
  // dropped, in order).
  CollectedGaugeFamily& memory_limit_;
  CollectedGaugeFamily& core_limit_;
  CollectedGaugeFamily& memory_allocated_;
  CollectedGaugeFamily& shared_count_;
  CollectedGaugeFamily& core_allocated_;
  CollectedGaugeFamily& overview_;
  CollectedGaugeFamily& memory_ratio_;
  CollectedGaugeFamily& pod_memory_;
  CollectedGaugeFamily& pod_cores_;

  // Running totals from the state become counter increments (only what is new is added).
  std::mutex totals_mutex_;
  int64_t shadow_pods_seen_ = 0;
  int64_t same_node_seen_ = 0;
  int64_t other_node_seen_ = 0;
  int64_t objects_rejected_seen_ = 0;
  std::array<WatchFigures, 2> watch_seen_{};  // node, pod
  DecisionLogFigures record_seen_{};
};

}  // namespace slicelab::k8s
