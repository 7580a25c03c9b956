#include "sim/serving/request_level_sim.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/metrics/distribution.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr size_t kMaxTenants = 64;

struct Request {
  double arrival = 0;
  double work = 0;  // solo seconds left
};

struct ReplicaState {
  std::vector<Request> in_service;
  std::vector<Request> waiting;  // a ring of max_queue slots
  size_t head = 0;
  size_t waiting_count = 0;
  double next_arrival = kNever;
  double turn_until = -1;  // waiting for its turn on the GPU until then
  double speed = 0;        // of each request in service
  Rng rng{0};
};

struct BackgroundState {
  bool active = true;
  double next_toggle = kNever;
};

class GpuRequestSim {
 public:
  GpuRequestSim(const SharingMode& mode, std::span<const ServingReplica> replicas,
                std::span<const BackgroundTenant> background, const RequestSimConfig& config)
      : mode_(mode), replicas_(replicas), background_(background), cfg_(config), rng_(config.seed) {
    if (replicas.size() + background.size() > kMaxTenants)
      throw std::invalid_argument("the request-level simulation takes at most 64 tenants per GPU");
    rs_.resize(replicas.size());
    for (size_t i = 0; i < replicas.size(); ++i) {
      const ReplicaServing& s = replicas[i].serving;
      if (!config.curves.empty() && config.curves.size() != replicas.size())
        throw std::invalid_argument("the request-level simulation needs a rate curve per replica");
      if (s.concurrency < 1 || !(s.request_sm > 0 && s.request_sm <= 1) ||
          !(replicas[i].arrival_rate >= 0) || s.max_queue < 0 || !(s.service.mean_s > 0))
        throw std::invalid_argument(
            "a replica needs concurrency >= 1, request_sm in (0, 1], "
            "a service time > 0 and an arrival rate >= 0");
      rs_[i].in_service.reserve(static_cast<size_t>(s.concurrency));
      rs_[i].waiting.resize(static_cast<size_t>(s.max_queue));
      rs_[i].rng = Rng(derive_seed(config.seed, "replica" + std::to_string(i)));
      rs_[i].next_arrival = draw_arrival(i, 0.0);
    }
    bs_.resize(background.size());
    for (size_t b = 0; b < background.size(); ++b) {
      if (background[b].idle_mean_s > 0) {
        // Start in the stationary state: active with probability duty().
        bs_[b].active = rng_.uniform() < background[b].duty();
        bs_[b].next_toggle = rng_.exponential(bs_[b].active ? background[b].active_mean_s
                                                            : background[b].idle_mean_s);
      }
    }
    out_.resize(replicas.size());
    loads_.reserve(kMaxTenants);
    owner_.reserve(kMaxTenants);
    rates_.resize(kMaxTenants);
    errors_.resize(kMaxTenants);
  }

  std::vector<RequestSimReplica> run() {
    recompute_speeds();
    for (;;) {
      double next = cfg_.horizon_s;
      for (size_t i = 0; i < rs_.size(); ++i) {
        const ReplicaState& r = rs_[i];
        next = std::min(next, r.next_arrival);
        if (r.turn_until > now_) {
          next = std::min(next, r.turn_until);
        } else if (!r.in_service.empty() && r.speed > 0) {
          double least = kNever;
          for (const Request& q : r.in_service) least = std::min(least, q.work);
          next = std::min(next, now_ + least / r.speed);
        }
      }
      for (const BackgroundState& b : bs_) next = std::min(next, b.next_toggle);
      advance(next);
      if (now_ >= cfg_.horizon_s) break;
      handle_events();
      recompute_speeds();
    }
    return std::move(out_);
  }

 private:
  double draw_arrival(size_t i, double from) {
    if (arrivals_ >= cfg_.max_requests) return kNever;
    if (cfg_.curves.empty()) {
      const double rate = replicas_[i].arrival_rate;
      return rate > 0 ? from + rs_[i].rng.exponential(1.0 / rate) : kNever;
    }
    const RateCurve& curve = cfg_.curves[i];
    const double peak = curve.peak(cfg_.horizon_s);
    if (peak <= 0) return kNever;
    for (double t = from; t < cfg_.horizon_s;) {
      t += rs_[i].rng.exponential(1.0 / peak);
      if (rs_[i].rng.uniform() * peak < curve.at(t)) return t;
    }
    return kNever;
  }

  void advance(double to) {
    const double dt = to - now_;
    if (dt > 0) {
      // Only the part after warm-up is measured.
      const double measured = std::max(0.0, to - std::max(now_, cfg_.warmup_s));
      for (size_t i = 0; i < rs_.size(); ++i) {
        ReplicaState& r = rs_[i];
        const bool waiting_turn = r.turn_until > now_;
        if (!r.in_service.empty()) {
          out_[i].busy_s += measured;
          out_[i].in_service_s += measured * static_cast<double>(r.in_service.size());
        }
        if (!waiting_turn && r.speed > 0)
          for (Request& q : r.in_service) q.work -= r.speed * dt;
      }
      for (RequestSimReplica& o : out_) o.measured_s += measured;
    }
    now_ = to;
  }

  bool any_other_active(size_t self) const {
    for (size_t i = 0; i < rs_.size(); ++i)
      if (i != self && !rs_[i].in_service.empty() && rs_[i].turn_until <= now_) return true;
    for (size_t b = 0; b < bs_.size(); ++b)
      if (bs_[b].active && background_[b].load.sm_demand > 0) return true;
    return false;
  }

  void handle_events() {
    // Completions first (a request done now frees its slot for an arrival at the same time).
    for (size_t i = 0; i < rs_.size(); ++i) {
      ReplicaState& r = rs_[i];
      if (r.turn_until > now_ || r.speed <= 0) continue;
      // Done: within a nanosecond of work of finishing (the event time was computed from it).
      const double eps = 1e-9 * std::max(1.0, r.speed);
      for (size_t k = 0; k < r.in_service.size();) {
        if (r.in_service[k].work <= eps) {
          finish(i, r.in_service[k]);
          r.in_service[k] = r.in_service.back();
          r.in_service.pop_back();
          admit_waiting(i);
        } else {
          ++k;
        }
      }
    }
    for (size_t i = 0; i < rs_.size(); ++i) {
      ReplicaState& r = rs_[i];
      if (r.next_arrival > now_) continue;
      ++arrivals_;
      arrive(i);
      r.next_arrival = draw_arrival(i, now_);
    }
    for (size_t b = 0; b < bs_.size(); ++b) {
      BackgroundState& s = bs_[b];
      if (s.next_toggle > now_) continue;
      s.active = !s.active;
      s.next_toggle = now_ + rng_.exponential(s.active ? background_[b].active_mean_s
                                                       : background_[b].idle_mean_s);
    }
  }

  void arrive(size_t i) {
    ReplicaState& r = rs_[i];
    const ReplicaServing& s = replicas_[i].serving;
    const bool measured = now_ >= cfg_.warmup_s;
    if (measured) ++out_[i].arrived;
    const Request q{now_, s.service.sample(r.rng)};
    if (r.in_service.size() < static_cast<size_t>(s.concurrency)) {
      if (r.in_service.empty() && r.turn_until <= now_) {
        const SharingMode::TurnWait turn = mode_.turn_wait();
        if (turn.slice_s > 0 && any_other_active(i))
          r.turn_until = now_ + r.rng.uniform() * turn.slice_s + turn.switch_s;
      }
      r.in_service.push_back(q);
    } else if (r.waiting_count < r.waiting.size()) {
      r.waiting[(r.head + r.waiting_count) % r.waiting.size()] = q;
      ++r.waiting_count;
    } else if (measured) {
      ++out_[i].dropped;
    }
  }

  void admit_waiting(size_t i) {
    ReplicaState& r = rs_[i];
    if (r.waiting_count == 0) return;
    r.in_service.push_back(r.waiting[r.head]);
    r.head = (r.head + 1) % r.waiting.size();
    --r.waiting_count;
  }

  void finish(size_t i, const Request& q) {
    if (q.arrival >= cfg_.warmup_s) out_[i].latencies_s.push_back(now_ - q.arrival);
  }

  void recompute_speeds() {
    loads_.clear();
    owner_.clear();
    for (size_t i = 0; i < rs_.size(); ++i) {
      ReplicaState& r = rs_[i];
      r.speed = 0;
      if (r.in_service.empty() || r.turn_until > now_) continue;
      TenantLoad load = replicas_[i].load;
      load.sm_demand =
          std::min(1.0, static_cast<double>(r.in_service.size()) * replicas_[i].serving.request_sm);
      loads_.push_back(load);
      owner_.push_back(static_cast<int>(i));
    }
    if (loads_.empty()) return;
    for (size_t b = 0; b < bs_.size(); ++b) {
      if (!bs_[b].active || background_[b].load.sm_demand <= 0) continue;
      loads_.push_back(background_[b].load);
      owner_.push_back(-1);
    }
    solve_gpu_rates(mode_, loads_, std::span(rates_).first(loads_.size()),
                    std::span(errors_).first(loads_.size()));
    for (size_t k = 0; k < loads_.size(); ++k) {
      if (owner_[k] < 0) continue;
      const auto i = static_cast<size_t>(owner_[k]);
      const double asked =
          static_cast<double>(rs_[i].in_service.size()) * replicas_[i].serving.request_sm;
      rs_[i].speed = rates_[k] * loads_[k].sm_demand / asked;
    }
  }

  const SharingMode& mode_;
  std::span<const ServingReplica> replicas_;
  std::span<const BackgroundTenant> background_;
  RequestSimConfig cfg_;
  Rng rng_;
  double now_ = 0;
  uint64_t arrivals_ = 0;
  std::vector<ReplicaState> rs_;
  std::vector<BackgroundState> bs_;
  std::vector<RequestSimReplica> out_;
  std::vector<TenantLoad> loads_;
  std::vector<int> owner_;
  std::vector<double> rates_, errors_;
};

}  // namespace

std::vector<RequestSimReplica> simulate_requests(const SharingMode& mode,
                                                 std::span<const ServingReplica> replicas,
                                                 std::span<const BackgroundTenant> background,
                                                 const RequestSimConfig& config) {
  return GpuRequestSim(mode, replicas, background, config).run();
}

double sample_quantile(std::vector<double>& values, double p) {
  if (values.empty()) return 0.0;
  if (!std::is_sorted(values.begin(), values.end())) std::sort(values.begin(), values.end());
  return nearest_rank(values, 100.0 * p);
}

double sample_mean(std::span<const double> values) {
  if (values.empty()) return 0.0;
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace slicelab
