// Request-latency distributions written as cumulative masses on one fixed logarithmic grid, so
// that a mixture over replicas and intervals is a sum and a quantile one search.
#pragma once

#include <array>
#include <span>

#include "sim/serving/replica_chain.h"
#include "workloads/service_time.h"

namespace slicelab {

// Latencies t_i = kFirst x kRatio^i, i = 0..kPoints-1: 10 us to about 159,000 s (44 hours), 4%
// apart, so a quantile interpolated between two points is within 2% of the distribution's own.
struct LatencyGrid {
  static constexpr double kFirst = 1e-5;
  static constexpr double kRatio = 1.04;
  static constexpr int kPoints = 600;
  static double at(int i);
  // Fractional index of latency t (negative below kFirst).
  static double index_of(double t);

  // The p-quantile of a mixture whose cumulative mass at t_i is cdf_mass[i] (kPoints values,
  // non-decreasing) out of `total` (mass beyond the last point included): log-linear between
  // grid points, kFirst scaled below the first. +infinity when the quantile lies beyond the grid
  // (an overloaded replica's latency), 0 when total is 0.
  static double quantile(std::span<const double> cdf_mass, double total, double p);
};

// P(S > t_j) of one service-time distribution at t_j = kFirst x kRatio^j for j = -kPoints ..
// kPoints - 1, so that S x stretch (stretch >= 1) on the grid is this table shifted.
class ServiceSurvivalTable {
 public:
  explicit ServiceSurvivalTable(const ServiceTime& service);
  const ServiceTime& service() const { return service_; }

  // P(S x stretch > t_i) for many i at one stretch: at(i + base) + f x (at(i + base
  // + 1) - at(i + base)) with base and f from shift(), 1 below the table and 0 above it.
  struct Shift {
    int base = 0;
    double f = 0.0;
  };
  Shift shift(double stretch) const;
  double at(int i, Shift s) const {
    const int j = i + s.base;
    if (j < 0) return 1.0;
    if (j + 1 >= static_cast<int>(survival_.size())) return survival_.back();
    return survival_[static_cast<size_t>(j)] +
           s.f * (survival_[static_cast<size_t>(j) + 1] - survival_[static_cast<size_t>(j)]);
  }
  // Table indices below which the survival is 1 and from which it is 0 (to a double's precision):
  // a stretched distribution's support on the grid is [first_below_one - base, first_zero - base).
  int first_below_one() const { return first_below_one_; }
  int first_zero() const { return first_zero_; }

 private:
  ServiceTime service_;
  std::array<double, size_t{2} * LatencyGrid::kPoints> survival_{};
  int first_below_one_ = 0;
  int first_zero_ = 0;
};

// One replica's request latency over an interval, as the approximation describes it: a share
// p_wait of requests waits in the queue, exponentially with mean wait_mean_s, and is then served
// in its service time times waiting_stretch; the others are served at once, group g (weight
// entering[g].weight) in its service time times entering[g].stretch. With probability p_turn a
// request first waits turn_s for its turn on a time-sliced GPU.
struct ResponseModel {
  std::array<StretchGroup, ReplicaQueueing::kGroups> entering{{{1.0, 1.0}}};
  size_t entering_groups = 1;
  double p_wait = 0.0;
  double wait_mean_s = 0.0;
  double waiting_stretch = 1.0;
  double p_turn = 0.0;
  double turn_s = 0.0;
  // Each stretch is itself spread: times a lognormal factor of mean 1 and this sigma of its log
  // (three-point Gauss-Hermite), as the batch a request shares changes while it is served.
  double spread = 0.0;

  static ResponseModel of(const ReplicaQueueing& q);
  double mean(const ServiceTime& service) const;
};

// Writes P(R <= t_i) for every grid point, times `mass` (the requests it stands for), added to
// cdf_mass (kPoints values). The wait's convolution with the service is a first-order filter
// along the grid: O(kPoints).
void add_response_cdf(const ResponseModel& model, const ServiceSurvivalTable& service, double mass,
                      std::span<double> cdf_mass);

}  // namespace slicelab
