#include "sim/serving/gpu_serving_approx.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/sharing/gpu_rate_solver.h"

namespace slicelab {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64's finaliser over the running hash.
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t bits(double x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// A tenant as the solver sees it, its demand aside.
uint64_t fingerprint(uint64_t h, const TenantLoad& t) {
  for (const double x : {t.sm_cap, t.cap, t.bandwidth, t.launch_khz}) h = mix(h, bits(x));
  return mix(h, static_cast<uint64_t>(t.memory_mib));
}

}  // namespace

double GpuServingApprox::solve_state() {
  // The same tenants asking the same demands get the same grant: each state is solved once per
  // tenant set (the set's fingerprint, the replica's place in it, every demand).
  uint64_t digest = mix(set_, self_);
  for (const TenantLoad& l : loads_) digest = mix(digest, bits(l.sm_demand));
  digest = mix(digest, present_.size());
  for (const size_t x : present_) digest = mix(digest, x);
  digest |= 1;  // never 0, the empty mark
  if (memo_.empty()) memo_.resize(kMemoCapacity);
  size_t slot = digest & (kMemoCapacity - 1);
  while (memo_[slot].digest != 0) {
    if (memo_[slot].digest == digest) return memo_[slot].grant;
    slot = (slot + 1) & (kMemoCapacity - 1);
  }
  rates_.resize(loads_.size());
  errors_.resize(loads_.size());
  vars_.resize(loads_.size());
  for (size_t k = 0; k < vars_.size(); ++k) vars_[k] = static_cast<uint32_t>(k);
  ++solver_calls_;
  solver_.clear();
  solver_.add_gpu(mode_, loads_, vars_);
  solver_.solve(rates_, errors_);
  if (memo_used_ >= kMemoFull) {
    std::fill(memo_.begin(), memo_.end(), MemoEntry{});
    memo_used_ = 0;
    slot = digest & (kMemoCapacity - 1);
  }
  memo_[slot] = {digest, rates_[0]};
  ++memo_used_;
  return rates_[0];
}

double GpuServingApprox::granted(const TenantLoad& self, double demand,
                                 std::span<const Neighbour> neighbours) {
  // Each neighbour's options: its levels, and idle when they leave probability.
  const auto idle_of = [](const Neighbour& n) {
    double p = 1.0;
    for (size_t l = 0; l < n.count; ++l) p -= n.levels[l].probability;
    return std::max(0.0, p);
  };
  size_t states = 1;
  size_t busy_idle = 1;
  for (const Neighbour& n : neighbours) {
    const size_t options = n.count + (idle_of(n) > 1e-12 ? 1 : 0);
    states = std::min(states * std::max<size_t>(options, 1), kMaxStates + 1);
    busy_idle = std::min(busy_idle * (options > 1 ? 2 : 1), kMaxStates + 1);
  }
  // 0: every level; 1: busy at the mean demand or idle; 2: always at the mean.
  const int detail = states <= kMaxStates ? 0 : busy_idle <= kMaxStates ? 1 : 2;
  // The options of neighbour x under `detail`: probability and demand of option d.
  const auto option = [&](const Neighbour& n, size_t d) -> DemandLevel {
    double busy = 0, asked = 0;
    for (size_t l = 0; l < n.count; ++l) {
      busy += n.levels[l].probability;
      asked += n.levels[l].probability * n.levels[l].demand;
    }
    if (detail == 2) return {1.0, asked};
    if (detail == 1)
      return d == 0 ? DemandLevel{busy, busy > 0 ? asked / busy : 0.0}
                    : DemandLevel{1.0 - busy, 0.0};
    return d < n.count ? n.levels[d] : DemandLevel{idle_of(n), 0.0};
  };
  const auto options_of = [&](const Neighbour& n) -> size_t {
    const bool idle = idle_of(n) > 1e-12;
    if (detail == 2) return 1;
    if (detail == 1) return idle && n.count > 0 ? 2 : 1;
    return n.count + (idle ? 1 : 0);
  };
  digit_.assign(neighbours.size(), 0);
  double mean = 0;
  for (;;) {
    double weight = 1.0;
    loads_.clear();
    TenantLoad me = self;
    me.sm_demand = demand;
    loads_.push_back(me);
    present_.clear();
    for (size_t x = 0; x < neighbours.size(); ++x) {
      if (options_of(neighbours[x]) == 0) continue;
      const DemandLevel o = option(neighbours[x], digit_[x]);
      weight *= o.probability;
      if (o.demand <= 0) continue;
      TenantLoad load = neighbours[x].load;
      load.sm_demand = o.demand;
      loads_.push_back(load);
      present_.push_back(x);  // which neighbour asks each demand
    }
    if (weight > 0) mean += weight * solve_state() * demand;
    // Next state (mixed radix).
    size_t x = 0;
    for (; x < neighbours.size(); ++x) {
      if (++digit_[x] < options_of(neighbours[x])) break;
      digit_[x] = 0;
    }
    if (x == neighbours.size()) break;
  }
  return mean;
}

void GpuServingApprox::speeds(size_t self, const ServingReplica& me,
                              std::span<const Neighbour> neighbours) {
  self_ = self;
  const ReplicaServing& s = me.serving;
  // Speeds for j = 1..k in service; from ceil(1 / request_sm) on the replica asks the whole
  // GPU, so its grant no longer changes and each request gets its 1/j part.
  const auto k = static_cast<size_t>(s.concurrency);
  speed_.resize(k);
  double full_grant = -1;
  for (size_t j = 1; j <= k; ++j) {
    const double asked = static_cast<double>(j) * s.request_sm;
    double grant = 0;
    if (asked >= 1 && full_grant >= 0) {
      grant = full_grant;
    } else {
      grant = granted(me.load, std::min(1.0, asked), neighbours);
      if (asked >= 1) full_grant = grant;
    }
    speed_[j - 1] = std::max(1e-9, std::min(1.0, grant / asked));
  }
}

void GpuServingApprox::neighbours_of(size_t self, size_t given,
                                     std::span<const ServingReplica> replicas,
                                     std::span<const BackgroundTenant> background) {
  const size_t n = replicas.size();
  neighbours_.clear();
  for (size_t o = 0; o < n; ++o) {
    if (o == self) continue;
    Neighbour nb{replicas[o].load, {}, 0};
    // For the replica itself (given == self): each neighbour as it is while the replica is
    // busy. Given another replica busy: that one's levels given busy, the rest as they are.
    const ReplicaQueueing& q = given == self ? given_[o * n + self] : chain_of_[o];
    nb.levels = q.levels;
    nb.count = q.level_count;
    if (o == given && q.busy > 0)
      for (size_t l = 0; l < nb.count; ++l) nb.levels[l].probability /= q.busy;
    neighbours_.push_back(nb);
  }
  for (const BackgroundTenant& b : background) {
    if (b.load.sm_demand <= 0) continue;
    Neighbour nb{b.load, {}, 1};
    nb.levels[0] = {b.duty(), b.load.sm_demand};
    neighbours_.push_back(nb);
  }
}

void GpuServingApprox::solve(std::span<const ServingReplica> replicas,
                             std::span<const BackgroundTenant> background,
                             std::span<ReplicaApprox> out, ServingWarmStart* warm) {
  double longest = 0;
  for (const ServingReplica& r : replicas) longest = std::max(longest, r.serving.service.mean_s);
  slow_.clear();
  for (size_t b = 0; b < background.size(); ++b) {
    const BackgroundTenant& t = background[b];
    if (t.idle_mean_s > 0 && t.load.sm_demand > 0 &&
        std::min(t.active_mean_s, t.idle_mean_s) >= kSlowPeriods * longest &&
        (size_t{1} << (slow_.size() + 1)) <= ReplicaApprox::kMaxPhases)
      slow_.push_back(b);
  }
  const size_t phases = size_t{1} << slow_.size();
  const size_t n = replicas.size();
  bool usable = warm != nullptr && warm->replicas == n && warm->phases == phases &&
                warm->given.size() == phases * n * n;
  for (ReplicaApprox& a : out) {
    usable = usable && a.phase_count == phases;
    a.phase_count = phases;
  }
  if (warm != nullptr) {
    if (!usable) warm->given.assign(phases * n * n, ReplicaQueueing{});
    warm->replicas = 0;  // valid again once every phase is solved
  }
  ServingWarmStart* start = usable ? warm : nullptr;
  for (size_t phase = 0; phase < phases; ++phase) {
    // Slow notebook k is on for good in this phase when bit k is set, else absent.
    double weight = 1.0;
    phase_background_.assign(background.begin(), background.end());
    for (size_t k = 0; k < slow_.size(); ++k) {
      BackgroundTenant& t = phase_background_[slow_[k]];
      const bool on = (phase >> k) & 1U;
      weight *= on ? t.duty() : 1.0 - t.duty();
      t.idle_mean_s = 0;  // always active while on
      if (!on) t.load.sm_demand = 0;
    }
    solve_phase(replicas, phase_background_, out, phase, start);
    if (warm != nullptr)
      std::copy(given_.begin(), given_.end(),
                warm->given.begin() + static_cast<std::ptrdiff_t>(phase * n * n));
    for (ReplicaApprox& a : out) a.phases[phase].weight = weight;
  }
  if (warm != nullptr) {
    warm->replicas = n;
    warm->phases = phases;
  }
}

void GpuServingApprox::solve_phase(std::span<const ServingReplica> replicas,
                                   std::span<const BackgroundTenant> background,
                                   std::span<ReplicaApprox> out, size_t phase,
                                   ServingWarmStart* warm) {
  const size_t n = replicas.size();
  set_ = mix(n, background.size());
  for (const ServingReplica& r : replicas) set_ = fingerprint(set_, r.load);
  for (const BackgroundTenant& b : background)
    set_ = mix(fingerprint(set_, b.load), bits(b.load.sm_demand));
  chain_of_.assign(n, ReplicaQueueing{});
  for (size_t i = 0; i < n; ++i) {
    if (warm != nullptr) {
      chain_of_[i] = out[i].phases[phase].queueing;
      continue;
    }
    const ReplicaServing& s = replicas[i].serving;
    // Start from each replica busy as much as its work asks at full speed, at one request.
    const double busy = std::min(0.99, replicas[i].arrival_rate * s.service.mean_s);
    chain_of_[i].busy = busy;
    chain_of_[i].levels[0] = {busy, std::min(1.0, s.request_sm)};
    chain_of_[i].level_count = busy > 0 ? 1 : 0;
  }
  given_.assign(n * n, ReplicaQueueing{});
  for (size_t o = 0; o < n; ++o)
    for (size_t i = 0; i < n; ++i)
      given_[o * n + i] = warm != nullptr ? warm->given[phase * n * n + o * n + i] : chain_of_[o];
  const SharingMode::TurnWait turn = mode_.turn_wait();
  rounds_ = 0;
  // From the last fixed point at nearby rates one round moves each chain most of the way.
  const int iterations = warm != nullptr ? kWarmIterations : kIterations;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    ++rounds_;
    double change = 0;
    for (size_t i = 0; i < n; ++i) {
      const ServingReplica& me = replicas[i];
      const ReplicaServing& s = me.serving;
      neighbours_of(i, i, replicas, background);
      speeds(i, me, neighbours_);
      ReplicaApprox::Phase& a = out[i].phases[phase];
      a.queueing = solve_replica_chain(s, me.arrival_rate, speed_, chain_);
      a.response = ResponseModel::of(a.queueing);
      if (turn.slice_s > 0) {
        double none_active = 1.0;
        for (size_t o = 0; o < n; ++o)
          if (o != i) none_active *= 1 - chain_of_[o].busy;
        for (const BackgroundTenant& b : background)
          if (b.load.sm_demand > 0) none_active *= 1 - b.duty();
        a.response.p_turn = a.queueing.idle_arrivals * (1.0 - none_active);
        a.response.turn_s = turn.slice_s / 2 + turn.switch_s;
      }
      a.mean_response_s = a.response.mean(s.service);
      change = std::max(change, std::abs(a.queueing.busy - chain_of_[i].busy));
      chain_of_[i] = a.queueing;
    }
    // Busy periods of replicas that share a GPU coincide: while one is busy it slows the
    // others, which stay busy longer. So each neighbour is taken as it is given the replica busy.
    for (size_t o = 0; o < n && n > 1; ++o) {
      for (size_t i = 0; i < n; ++i) {
        if (i == o) continue;
        neighbours_of(o, i, replicas, background);
        speeds(o, replicas[o], neighbours_);
        ReplicaQueueing& g = given_[o * n + i];
        const double before = g.busy;
        g = solve_replica_chain(replicas[o].serving, replicas[o].arrival_rate, speed_, chain_);
        change = std::max(change, std::abs(g.busy - before));
      }
    }
    if (change < 1e-4) break;
  }
}

double ReplicaApprox::mean_response_s() const {
  double sum = 0;
  for (size_t k = 0; k < phase_count; ++k) sum += phases[k].weight * phases[k].mean_response_s;
  return sum;
}

double ReplicaApprox::busy() const {
  double sum = 0;
  for (size_t k = 0; k < phase_count; ++k) sum += phases[k].weight * phases[k].queueing.busy;
  return sum;
}

double ReplicaApprox::mean_share() const {
  double sum = 0;
  for (size_t k = 0; k < phase_count; ++k) sum += phases[k].weight * phases[k].queueing.mean_share;
  return sum;
}

double ReplicaApprox::mean_in_service() const {
  double sum = 0;
  for (size_t k = 0; k < phase_count; ++k)
    sum += phases[k].weight * phases[k].queueing.mean_in_service;
  return sum;
}

double ReplicaApprox::drop_fraction() const {
  double sum = 0;
  for (size_t k = 0; k < phase_count; ++k)
    sum += phases[k].weight * phases[k].queueing.drop_fraction;
  return sum;
}

bool ReplicaApprox::outside_checked_range() const {
  for (size_t k = 0; k < phase_count; ++k)
    if (phases[k].weight > 0.01 && phases[k].queueing.load > kCheckedLoad) return true;
  return false;
}

void ReplicaApprox::add_cdf(const ServiceSurvivalTable& service, double mass,
                            std::span<double> cdf) const {
  for (size_t k = 0; k < phase_count; ++k)
    if (phases[k].weight > 0)
      add_response_cdf(phases[k].response, service, mass * phases[k].weight, cdf);
}

}  // namespace slicelab
