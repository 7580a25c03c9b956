// One replica's queue as a birth-death chain: Poisson arrivals, departures at the rate its
// requests' speeds allow, a FIFO queue of bounded length. The approximation's core.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "sim/serving/serving_tenants.h"

namespace slicelab {

// Requests that enter service with j in service run at the speed of j; a request of such a group
// is served in its service time times `stretch`. `weight` counts the admitted requests.
struct StretchGroup {
  double weight = 0.0;
  double stretch = 1.0;
};

// The replica asks `demand` of the GPU with this probability (a level of its batch).
struct DemandLevel {
  double probability = 0.0;
  double demand = 0.0;
};

struct ReplicaQueueing {
  static constexpr size_t kGroups = 8;
  static constexpr size_t kLevels = 4;
  double busy = 0.0;                  // P(a request in service)
  double mean_in_service = 0.0;       // E[requests in service]
  double mean_in_service_busy = 0.0;  // the same, given busy
  double mean_share = 0.0;            // E[GPU share the replica is granted]
  double idle_arrivals = 1.0;         // share of arrivals that find it idle
  double p_wait = 0.0;                // share of admitted requests that wait in the queue
  double wait_mean_s = 0.0;           // mean wait of those that wait
  double stretch = 1.0;               // mean time in service / mean service time
  double drop_fraction = 0.0;         // arrivals refused by a full queue
  double load = 0.0;             // arrival rate / the largest departure rate (>= 1: overloaded)
  double mean_response_s = 0.0;  // of admitted requests, turn waits aside
  // Requests that do not wait, by the number in service they join (merged into at most kGroups
  // groups of about equal weight), and those that wait (they join a full batch): their
  // stretches, scaled so that their mean is `stretch` (a request's neighbours come and go
  // while it is served, so the state it found lasts only part of its service).
  std::array<StretchGroup, kGroups> entering{};
  size_t entering_groups = 0;
  double waiting_stretch = 1.0;
  // The coefficient of variation of 1 / speed as requests in service see it (weighted by the
  // number in service): how much the batch a request shares changes around it.
  double stretch_cv = 0.0;
  // What it asks of the GPU while busy: min(1, j x request_sm) with j in service, in at most
  // kLevels levels (probabilities summing to `busy`; j merged into groups of about equal
  // probability, each at its mean demand, when there are more distinct demands).
  std::array<DemandLevel, kLevels> levels{};
  size_t level_count = 0;
};

// speed[j - 1]: the speed of each request while j are in service (j = 1..concurrency, each
// > 0). Departure rate with n requests: min(n, k) x speed[min(n, k) - 1] / mean service time.
// The chain is exact for exponential service times; for others the wait is scaled by
// (1 + cv^2) / 2 (Allen and Cunneen's approximation for M/G/c), and the time in service keeps
// its mean (exact for processor sharing and for requests served at a fixed speed).
// `scratch` holds the chain's states between calls (no allocation once it is large enough).
ReplicaQueueing solve_replica_chain(const ReplicaServing& serving, double arrival_rate,
                                    std::span<const double> speed, std::vector<double>& scratch);
inline ReplicaQueueing solve_replica_chain(const ReplicaServing& serving, double arrival_rate,
                                           std::span<const double> speed) {
  std::vector<double> scratch;
  return solve_replica_chain(serving, arrival_rate, speed, scratch);
}

}  // namespace slicelab
