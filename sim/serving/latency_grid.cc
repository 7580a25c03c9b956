#include "sim/serving/latency_grid.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace slicelab {
namespace {

const double kLogRatio = std::log(LatencyGrid::kRatio);

}  // namespace

double LatencyGrid::at(int i) {
  return kFirst * std::pow(kRatio, i);
}

double LatencyGrid::index_of(double t) {
  return std::log(t / kFirst) / kLogRatio;
}

double LatencyGrid::quantile(std::span<const double> cdf_mass, double total, double p) {
  assert(cdf_mass.size() == static_cast<size_t>(kPoints));
  if (total <= 0) return 0.0;
  const double target = p * total;
  const auto it = std::lower_bound(cdf_mass.begin(), cdf_mass.end(), target);
  if (it == cdf_mass.end()) return std::numeric_limits<double>::infinity();
  const auto i = static_cast<int>(it - cdf_mass.begin());
  if (i == 0) return cdf_mass[0] > 0 ? kFirst * target / cdf_mass[0] : kFirst;
  const double lo = cdf_mass[static_cast<size_t>(i) - 1];
  const double hi = cdf_mass[static_cast<size_t>(i)];
  const double f = hi > lo ? (target - lo) / (hi - lo) : 1.0;
  return at(i - 1) * std::pow(kRatio, f);
}

ServiceSurvivalTable::ServiceSurvivalTable(const ServiceTime& service) : service_(service) {
  for (int j = 0; j < 2 * LatencyGrid::kPoints; ++j)
    survival_[static_cast<size_t>(j)] = service.survival(LatencyGrid::at(j - LatencyGrid::kPoints));
}

double ServiceSurvivalTable::stretched(int i, double stretch) const {
  // S x stretch > t_i  <=>  S > t_i / stretch, at fractional index i - log(stretch) / log(ratio).
  const double x = i + LatencyGrid::kPoints - std::log(stretch) / kLogRatio;
  if (x <= 0) return 1.0;
  const auto j = static_cast<size_t>(x);
  if (j + 1 >= survival_.size()) return survival_.back();
  const double f = x - static_cast<double>(j);
  if (service_.shape == ServiceTime::Shape::kConstant)
    return LatencyGrid::at(i) < service_.mean_s * stretch ? 1.0 : 0.0;
  return survival_[j] + f * (survival_[j + 1] - survival_[j]);
}

ResponseModel ResponseModel::of(const ReplicaQueueing& q) {
  ResponseModel m;
  m.entering = q.entering;
  m.entering_groups = q.entering_groups;
  m.p_wait = q.p_wait;
  m.wait_mean_s = q.wait_mean_s;
  m.waiting_stretch = q.waiting_stretch;
  m.spread = std::sqrt(std::log1p(q.stretch_cv * q.stretch_cv));
  return m;
}

double ResponseModel::mean(const ServiceTime& service) const {
  double stretch = p_wait * waiting_stretch;
  for (size_t g = 0; g < entering_groups; ++g) stretch += entering[g].weight * entering[g].stretch;
  return p_wait * wait_mean_s + stretch * service.mean_s + p_turn * turn_s;
}

void add_response_cdf(const ResponseModel& model, const ServiceSurvivalTable& service, double mass,
                      std::span<double> cdf_mass) {
  assert(cdf_mass.size() == static_cast<size_t>(LatencyGrid::kPoints));
  constexpr int n = LatencyGrid::kPoints;
  // P(R > t_i) without the turn wait: sum over the groups served at once of weight x P(S x
  // stretch > t), plus p_wait x P(W + S x waiting_stretch > t) with W exponential of mean w:
  // P(W + X > t) = Xbar(t) + A(t), A(t) = E[exp(-(t - X) / w); X <= t], carried along the grid
  // by A(t_i+1) = exp(-(t_i+1 - t_i) / w) A(t_i) + P(t_i < X <= t_i+1) exp(-(t_i+1 - m_i) / w),
  // m_i the bin's geometric middle.
  std::array<double, LatencyGrid::kPoints> g{};
  const double w = model.wait_mean_s;
  const bool waits = model.p_wait > 0;
  double a = 0;
  double prev_x = 1.0;
  double prev_t = 0;
  // Three-point Gauss-Hermite nodes of a standard normal: 0 (weight 2/3), +-sqrt(3) (1/6 each).
  const double sp = model.spread;
  const double up = std::exp(sp * std::sqrt(3.0) - sp * sp / 2);
  const double mid_f = std::exp(-sp * sp / 2);
  const double down = std::exp(-sp * std::sqrt(3.0) - sp * sp / 2);
  const auto spread_survival = [&](int i, double stretch) {
    if (sp <= 0) return service.stretched(i, stretch);
    return (service.stretched(i, stretch * down) + 4 * service.stretched(i, stretch * mid_f) +
            service.stretched(i, stretch * up)) /
           6;
  };
  for (int i = 0; i < n; ++i) {
    const double t = LatencyGrid::at(i);
    double survive = 0;
    for (size_t k = 0; k < model.entering_groups; ++k)
      survive += model.entering[k].weight * spread_survival(i, model.entering[k].stretch);
    if (waits) {
      const double xbar = spread_survival(i, model.waiting_stretch);
      if (w > 0) {
        const double mid = i == 0 ? 0.5 * t : std::sqrt(prev_t * t);
        a = std::exp(-(t - prev_t) / w) * a + (prev_x - xbar) * std::exp(-(t - mid) / w);
      }
      survive += model.p_wait * (xbar + a);
      prev_x = xbar;
    }
    g[static_cast<size_t>(i)] = std::min(1.0, survive);
    prev_t = t;
  }
  // The turn wait shifts a share p_turn of requests by turn_s: G(t - turn_s), interpolated on
  // the grid (1 below its first point).
  const double shift = model.p_turn > 0 ? model.turn_s : 0.0;
  for (int i = 0; i < n; ++i) {
    double survive = g[static_cast<size_t>(i)];
    if (shift > 0) {
      const double t = LatencyGrid::at(i) - shift;
      double shifted = 1.0;
      if (t > LatencyGrid::kFirst) {
        const double x = LatencyGrid::index_of(t);
        const auto j = static_cast<size_t>(x);
        const double f = x - static_cast<double>(j);
        shifted = j + 1 < static_cast<size_t>(n) ? g[j] + f * (g[j + 1] - g[j]) : g[j];
      }
      survive = (1 - model.p_turn) * survive + model.p_turn * shifted;
    }
    cdf_mass[static_cast<size_t>(i)] += mass * (1.0 - survive);
  }
}

}  // namespace slicelab
