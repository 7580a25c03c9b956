// The fast approximation of one GPU's replicas: per replica, the speeds its requests get from
// the one rate solver beside its neighbours, then its queue as a birth-death chain, to a fixed
// point.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/serving/latency_grid.h"
#include "sim/serving/replica_chain.h"
#include "sim/serving/serving_tenants.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

// One replica's latency over an interval: one phase, or one per combination of its slow
// neighbours' states (notebooks whose active and idle periods outlast many requests: the replica's
// queue settles within each, so each is solved on its own and weighted by its probability).
struct ReplicaApprox {
  // The approximation is held against the request-level simulation up to this load (arrival
  // rate / the largest departure rate); above it, its errors grow and are reported as such.
  static constexpr double kCheckedLoad = 0.9;
  static constexpr size_t kMaxPhases = 8;
  struct Phase {
    double weight = 1.0;
    ReplicaQueueing queueing;
    ResponseModel response;        // with the replica's service time: its latency distribution
    double mean_response_s = 0.0;  // turn waits included
  };
  std::array<Phase, kMaxPhases> phases{};
  size_t phase_count = 1;

  // Weighted over the phases.
  double mean_response_s() const;
  double busy() const;
  double mean_share() const;
  double mean_in_service() const;
  double drop_fraction() const;
  // A phase that carries more than 1% of the time lies above kCheckedLoad.
  bool outside_checked_range() const;
  // Every phase's latency distribution, times `mass` x its weight (add_response_cdf).
  void add_cdf(const ServiceSurvivalTable& service, double mass, std::span<double> cdf) const;
};

// What a solve leaves for a later solve of the same tenants to start from: each replica's chain
// given each other replica busy, per phase (its own chains are in its ReplicaApprox).
struct ServingWarmStart {
  std::vector<ReplicaQueueing> given;  // [phase][o][i], n x n per phase
  size_t replicas = 0, phases = 0;     // 0: nothing to start from
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
// A notebook is slow when its mean active and idle periods both last at least kSlowPeriods times
// the longest mean service time on the GPU; up to log2(kMaxPhases) of them are taken phase by
// phase (each on or off for good), the rest as fast neighbours.
class GpuServingApprox {
 public:
  static constexpr size_t kMaxStates = 64;
  static constexpr double kSlowPeriods = 50.0;
  static constexpr int kIterations = 8;
  static constexpr int kWarmIterations = 1;

  explicit GpuServingApprox(const SharingMode& mode) : mode_(mode) {}
  // out.size() == replicas.size(); arrival rates from replicas[i].arrival_rate. With `warm`
  // (not null) holding a solve of the same tenants at nearby rates (the previous interval's, with
  // `out` as it left it), the iteration starts from that fixed point and takes kWarmIterations
  // rounds, not five or six; the solve leaves its own state there either way.
  void solve(std::span<const ServingReplica> replicas, std::span<const BackgroundTenant> background,
             std::span<ReplicaApprox> out, ServingWarmStart* warm = nullptr);
  // Rounds the last solve() took, and the rate-solver calls all solves made (for benchmarks).
  int rounds() const { return rounds_; }
  uint64_t solver_calls() const { return solver_calls_; }

 private:
  struct Neighbour {
    TenantLoad load;  // its sm_demand is set from the levels
    std::array<DemandLevel, ReplicaQueueing::kLevels> levels{};
    size_t count = 0;  // levels; the probability they leave is the chance it is idle
  };
  // One phase: the fixed point of every replica beside `background`, into out[i].phases[phase].
  void solve_phase(std::span<const ServingReplica> replicas,
                   std::span<const BackgroundTenant> background, std::span<ReplicaApprox> out,
                   size_t phase, ServingWarmStart* warm);
  // The share the mode grants a tenant `self` asking `demand` beside `neighbours` (each active
  // with its probability), averaged over their states.
  double granted(const TenantLoad& self, double demand, std::span<const Neighbour> neighbours);
  // speed_[j - 1] of replica `self` (`me`) beside `neighbours`.
  void speeds(size_t self, const ServingReplica& me, std::span<const Neighbour> neighbours);
  // The grant of loads_[0] beside loads_[1..] (the neighbours present_), memoised.
  double solve_state();
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
  std::vector<uint32_t> vars_;
  // The memo of solve_state(): per state (a 64-bit digest of the tenant set's fingerprint, the
  // replica, every demand and the present neighbours) its grant, in a flat open-addressed table
  // (a lookup is one or two cache lines, not a chain of 200-byte keys). Kept across solves (the
  // same pairs recur all day), emptied when it is kMemoFull full. Two states with one digest
  // (odds about n^2 / 2^65 for n states held, 1e-10 at n = 1e5) would share a grant.
  static constexpr size_t kMemoCapacity = size_t{1} << 17;
  static constexpr size_t kMemoFull = kMemoCapacity / 10 * 7;
  struct MemoEntry {
    uint64_t digest = 0;  // 0: empty
    double grant = 0;
  };
  std::vector<MemoEntry> memo_;
  size_t memo_used_ = 0;
  uint64_t set_ = 0;
  size_t self_ = 0;
  std::vector<size_t> present_;
  int rounds_ = 0;
  uint64_t solver_calls_ = 0;
  GpuRateSolver solver_;
  std::vector<ReplicaQueueing> chain_of_;  // each replica's last chain
  std::vector<ReplicaQueueing> given_;     // [o * n + i]: o's chain with i always active
  std::vector<BackgroundTenant> phase_background_;
  std::vector<size_t> slow_;
  std::vector<double> chain_;
};

}  // namespace slicelab
