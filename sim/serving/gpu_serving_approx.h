// The fast approximation of one GPU's replicas: per replica, the speeds its requests get from
// the one rate solver beside its neighbours, then its queue as a birth-death chain, to a fixed
// point.
#pragma once

#include <span>
#include <vector>

#include "sim/serving/latency_grid.h"
#include "sim/serving/replica_chain.h"
#include "sim/serving/serving_tenants.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

struct ReplicaApprox {
  // The approximation is held against the request-level simulation up to this load (arrival
  // rate / the largest departure rate); above it, its errors grow and are reported as such.
  static constexpr double kCheckedLoad = 0.9;
  ReplicaQueueing queueing;
  ResponseModel response;        // with the service time of the replica: its latency distribution
  double mean_response_s = 0.0;  // turn waits included

  bool outside_checked_range() const { return queueing.load > kCheckedLoad; }
};

// Neighbours are independent of each other. A neighbouring replica asks the GPU for each of its
// demand levels with its chain's probability given the replica busy (its chain solved with the
// replica always active); a notebook is active with its duty cycle. A request's speed with j in
// service is the mean over the neighbours' states, each solved by the mode and the one rate
// solver: every state when there are at most kMaxStates, else each neighbour busy or idle at
// its mean demand, else (more than log2(kMaxStates) such neighbours) each asking its mean. The
// replicas' chains are iterated to a fixed point (at most kIterations rounds).
// Under time-slicing, a request that finds its replica idle while a neighbour is active waits
// for its turn: half a slice and a switch on average (SharingMode::turn_wait).
class GpuServingApprox {
 public:
  static constexpr size_t kMaxStates = 64;
  static constexpr int kIterations = 8;

  explicit GpuServingApprox(const SharingMode& mode) : mode_(mode) {}
  // out.size() == replicas.size(); arrival rates from replicas[i].arrival_rate.
  void solve(std::span<const ServingReplica> replicas, std::span<const BackgroundTenant> background,
             std::span<ReplicaApprox> out);

 private:
  struct Neighbour {
    TenantLoad load;  // its sm_demand is set from the levels
    std::array<DemandLevel, ReplicaQueueing::kLevels> levels{};
    size_t count = 0;  // levels; the probability they leave is the chance it is idle
  };
  // The share the mode grants a tenant `self` asking `demand` beside `neighbours` (each active
  // with its probability), averaged over their states.
  double granted(const TenantLoad& self, double demand, std::span<const Neighbour> neighbours);
  // speed_[j - 1] of `me` beside `neighbours`.
  void speeds(const ServingReplica& me, std::span<const Neighbour> neighbours);
  // neighbours_ of replica `self`: the others and the background, each active with its
  // probability; given == self: each replica's probability given `self` busy; else `given` is
  // active for sure and the rest at their own probabilities.
  void neighbours_of(size_t self, size_t given, std::span<const ServingReplica> replicas,
                     std::span<const BackgroundTenant> background);

  const SharingMode& mode_;
  std::vector<Neighbour> neighbours_;
  std::vector<TenantLoad> loads_;
  std::vector<double> rates_, errors_, speed_;
  std::vector<size_t> digit_;
  std::vector<ReplicaQueueing> chain_of_;  // each replica's last chain
  std::vector<ReplicaQueueing> given_;     // [o * n + i]: o's chain with i always active
  std::vector<double> chain_;
};

}  // namespace slicelab
