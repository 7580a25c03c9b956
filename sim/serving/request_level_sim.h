// The request-level simulation of one GPU: every request an event, exact for the serving model
// (sim/serving/serving_tenants.h) and used to check the fast approximation against it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/serving/serving_tenants.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/rate_curve.h"

namespace slicelab {

struct RequestSimConfig {
  double horizon_s = 3600.0;
  double warmup_s = 60.0;  // requests arriving before this are served but not measured
  uint64_t seed = 1;
  // Stops arrivals once this many requests have arrived in all (a bound on time and memory).
  uint64_t max_requests = 5'000'000;
  // Per replica, a rate that changes over time (empty: each replica's constant arrival_rate).
  // Arrivals are a Poisson process of that rate, drawn by thinning at the curve's peak.
  std::vector<RateCurve> curves{};
};

struct RequestSimReplica {
  std::vector<double> latencies_s;  // measured requests that finished, in finishing order
  uint64_t arrived = 0;             // measured arrivals
  uint64_t dropped = 0;             // of those, refused by a full queue
  double busy_s = 0.0;              // measured time with a request in service or in a turn wait
  double in_service_s = 0.0;        // integral of the number in service over measured time
  double measured_s = 0.0;

  double busy_fraction() const { return measured_s > 0 ? busy_s / measured_s : 0.0; }
};

// Simulates `replicas` and `background` sharing one GPU under `mode` for config.horizon_s. At
// every change of who has work, the mode declares the active tenants (a replica asks
// min(1, n x request_sm); an active background tenant its sm_demand) and the one rate solver
// grants their shares. A replica that gets work while a neighbour is active first waits for its
// turn when the mode has turns (time-slicing: uniform in [0, slice) plus a switch).
// Throws std::invalid_argument on a replica with concurrency < 1, request_sm outside (0, 1] or
// a negative rate, and when more than 64 tenants share the GPU.
std::vector<RequestSimReplica> simulate_requests(const SharingMode& mode,
                                                 std::span<const ServingReplica> replicas,
                                                 std::span<const BackgroundTenant> background,
                                                 const RequestSimConfig& config);

// The p-quantile of `values` (sorted in place), by the summary's nearest-rank rule
// (sim/metrics/distribution.h); 0 when empty.
double sample_quantile(std::vector<double>& values, double p);
double sample_mean(std::span<const double> values);

}  // namespace slicelab
