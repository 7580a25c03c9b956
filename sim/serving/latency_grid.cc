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
  const int n = static_cast<int>(survival_.size());
  for (int j = 0; j < n; ++j)
    survival_[static_cast<size_t>(j)] = service.survival(LatencyGrid::at(j - LatencyGrid::kPoints));
  // Within 1e-12 of 1 or of 0 counts as 1 or 0: no percentile can tell, and a lognormal's
  // erfc reaches an exact 0 only some 27 sigma out, which would widen every write threefold.
  first_below_one_ = n;
  for (int j = 0; j < n; ++j)
    if (survival_[static_cast<size_t>(j)] < 1.0 - 1e-12) {
      first_below_one_ = j;
      break;
    }
  first_zero_ = n;
  for (int j = n; j > 0; --j)
    if (survival_[static_cast<size_t>(j) - 1] > 1e-12) {
      first_zero_ = j + 1;
      break;
    }
}

ServiceSurvivalTable::Shift ServiceSurvivalTable::shift(double stretch) const {
  // S x stretch > t_i  <=>  S > t_i / stretch, at fractional index i - log(stretch) / log(ratio).
  if (service_.shape == ServiceTime::Shape::kConstant) {
    // A step, not interpolated: 1 exactly for the grid points below mean x stretch. The table
    // holds 1 below mean's first grid point i_m, so read it i_m - i_c further along, i_c the
    // first grid point at or above mean x stretch.
    const auto first_at = [](double t) {
      return static_cast<int>(std::ceil(LatencyGrid::index_of(t) - 1e-9));
    };
    return {LatencyGrid::kPoints + first_at(service_.mean_s) - first_at(service_.mean_s * stretch),
            0.0};
  }
  const double x = LatencyGrid::kPoints - std::log(stretch) / kLogRatio;
  const double base = std::floor(x);
  return {static_cast<int>(base), x - base};
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
  // m_i the bin's middle. Each stretch is spread by a lognormal factor of mean 1
  // (three-point Gauss-Hermite: 0 with weight 2/3, +-sqrt(3) sigma with 1/6 each).
  struct Part {
    double weight;
    ServiceSurvivalTable::Shift shift;
  };
  std::array<Part, 3 * (ReplicaQueueing::kGroups + 1)> parts{};
  size_t count = 0;
  const double sp = model.spread;
  const double factors[3] = {std::exp(-sp * std::sqrt(3.0) - sp * sp / 2), std::exp(-sp * sp / 2),
                             std::exp(sp * std::sqrt(3.0) - sp * sp / 2)};
  const double weights[3] = {1.0 / 6, 4.0 / 6, 1.0 / 6};
  int lo = n;
  int hi = 0;
  const auto add_parts = [&](double weight, double stretch) {
    for (int k = 0; k < 3; ++k) {
      if (sp <= 0 && k != 1) continue;
      const double w = sp <= 0 ? weight : weight * weights[k];
      const auto sh = service.shift(stretch * factors[k]);
      parts[count++] = {w, sh};
      lo = std::min(lo, service.first_below_one() - sh.base - 1);
      hi = std::max(hi, service.first_zero() - sh.base + 1);
    }
  };
  for (size_t g = 0; g < model.entering_groups; ++g)
    add_parts(model.entering[g].weight, model.entering[g].stretch);
  const size_t waiting_from = count;
  // A share below one in a billion waits too rarely to move any percentile slicelab reports:
  // those requests are counted as served at once (the filter below is the costly part).
  const bool waits = model.p_wait > 1e-9;
  if (waits)
    add_parts(1.0, model.waiting_stretch);
  else if (model.p_wait > 0)
    add_parts(model.p_wait, model.waiting_stretch);
  lo = std::clamp(lo, 0, n);
  hi = std::clamp(hi, lo, n);

  // g[i] = P(R > t_i) on [lo, end); 1 below lo. Past hi only the wait's tail remains.
  std::array<double, LatencyGrid::kPoints> g{};
  const double w = model.wait_mean_s;
  double a = 0;
  double prev_x = 1.0;
  double t = LatencyGrid::at(lo);
  double prev_t = lo == 0 ? 0.0 : t / LatencyGrid::kRatio;
  int end = n;
  for (int i = lo; i < n; ++i) {
    double survive = 0;
    if (i < hi) {
      for (size_t k = 0; k < waiting_from; ++k)
        survive += parts[k].weight * service.at(i, parts[k].shift);
    }
    if (waits) {
      double xbar = 0;
      if (i < hi)
        for (size_t k = waiting_from; k < count; ++k)
          xbar += parts[k].weight * service.at(i, parts[k].shift);
      if (w > 0) {
        // Both factors underflow once a bin is 700 wait-means wide: the wait then ends within
        // the bin, and A is the bin's own mass (nothing of it left in the next).
        const double width = (t - prev_t) / w;
        if (width > 700) {
          a = 0;
        } else {
          // The bin's mass sits at its middle, half a width before t: one exp for both factors.
          const double half = std::exp(-0.5 * width);
          a = half * half * a + (prev_x - xbar) * half;
        }
      }
      survive += model.p_wait * (xbar + a);
      prev_x = xbar;
    }
    g[static_cast<size_t>(i)] = std::min(1.0, survive);
    if (i >= hi && model.p_wait * a < 1e-16) {
      end = i + 1;
      break;
    }
    prev_t = t;
    t *= LatencyGrid::kRatio;
  }
  for (int i = 0; i < lo; ++i) g[static_cast<size_t>(i)] = 1.0;
  // g is 0 from `end` on (every request done by then).

  // The turn wait shifts a share p_turn of requests by turn_s: G(t - turn_s), interpolated on
  // the grid (1 below its first point), the point below t - turn_s found by walking the grid
  // along with t (both only grow).
  const double shift = model.p_turn > 0 ? model.turn_s : 0.0;
  const auto g_at = [&](size_t j) { return j < static_cast<size_t>(end) ? g[j] : 0.0; };
  t = LatencyGrid::at(lo);
  size_t j = 0;
  double tj = LatencyGrid::kFirst;
  for (int i = lo; i < n; ++i, t *= LatencyGrid::kRatio) {
    double survive = g_at(static_cast<size_t>(i));
    if (shift > 0) {
      const double ts = t - shift;
      double shifted = 1.0;
      if (ts > LatencyGrid::kFirst) {
        while (j + 1 < static_cast<size_t>(n) && tj * LatencyGrid::kRatio <= ts) {
          ++j;
          tj *= LatencyGrid::kRatio;
        }
        const double f = std::min(1.0, (ts - tj) / (tj * (LatencyGrid::kRatio - 1)));
        shifted = j + 1 < static_cast<size_t>(n) ? g_at(j) + f * (g_at(j + 1) - g_at(j)) : g_at(j);
      }
      survive = (1 - model.p_turn) * survive + model.p_turn * shifted;
    }
    cdf_mass[static_cast<size_t>(i)] += mass * (1.0 - survive);
  }
}

}  // namespace slicelab
