// What the services' requests met over a run: per service, the latency distributions of its
// intervals and of the whole run on the one latency grid, its lost requests and its replicas.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/metrics/bounded_series.h"
#include "sim/metrics/run_result.h"
#include "sim/serving/gpu_serving_approx.h"
#include "sim/serving/latency_grid.h"
#include "workloads/service_table.h"

namespace slicelab {

// Contract: an interval is begin_interval(), then any add_*() calls, then end_interval(); the
// intervals do not overlap and follow each other in time. Memory: two grids per service and at
// most kMaxServiceSampleRows samples, whatever the run's length.
class ServiceLedger {
 public:
  explicit ServiceLedger(const ServiceTable& services);

  void begin_interval(double t0, double t1);
  // A replica of service s received `requests` (expected arrivals in the interval) and served
  // them as `approx` says.
  void add_replica(size_t s, const ReplicaApprox& approx, double requests);
  // Requests of service s that found no ready replica.
  void add_unserved(size_t s, double requests);
  // Service s's replicas over the interval: wanted (the autoscaler's count), placed, ready, and
  // the GPUs they held (claims, as shares of a GPU).
  struct Replicas {
    uint32_t wanted = 0, placed = 0, ready = 0;
    double gpus = 0;
  };
  void end_interval(std::span<const Replicas> replicas);
  void scaled(size_t s, bool up) { ++(up ? state_[s].scale_ups : state_[s].scale_downs); }
  void replica_failed(size_t s) { ++state_[s].failures; }

  // The run's per-service summaries and totals, and its samples (released).
  std::vector<ServiceSummary> summaries() const;
  ServiceTotals totals(std::span<const ServiceSummary> summaries) const;
  std::vector<ServiceSample> take_samples() { return samples_.release(); }

  // Cumulative mass of `cdf` at latency t (log-linear between grid points, as quantile()).
  static double mass_below(std::span<const double> cdf, double t);

 private:
  struct State {
    std::vector<double> run_cdf, interval_cdf;
    double requests = 0, dropped = 0, unserved = 0, served = 0, latency_sum = 0, outside = 0;
    double interval_requests = 0, interval_lost = 0, interval_served = 0;
    double ready_s = 0, unplaced_s = 0, gpu_s = 0;
    uint32_t peak = 0, unplaced_peak = 0, scale_ups = 0, scale_downs = 0, failures = 0;
  };
  const ServiceTable& services_;
  std::vector<ServiceSurvivalTable> tables_;
  std::vector<State> state_;
  std::vector<double> run_all_;  // every service's run grid summed, for the totals
  double t0_ = 0, t1_ = 0, window_s_ = 0;
  BoundedSeries<ServiceSample> samples_;
};

}  // namespace slicelab
