#include "planning/capacity_fit.h"

#include <Eigen/Dense>

#include <algorithm>
#include <set>

namespace slicelab {

std::optional<CapacityFit> fit_capacity_curve(std::span<const CurvePoint> points, int samples) {
  std::set<double> distinct;
  for (const auto& p : points)
    if (p.gpus > 0) distinct.insert(p.gpus);
  if (distinct.size() < 2) return std::nullopt;
  std::vector<CurvePoint> pts;
  for (const auto& p : points)
    if (p.gpus > 0) pts.push_back(p);
  const auto n = static_cast<Eigen::Index>(pts.size());
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& p = pts[static_cast<size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1) = 1.0 / p.gpus;
    y(i) = p.value;
  }
  // QR rather than normal equations: better conditioned when 1/gpus values are close together.
  Eigen::Vector2d c = x.colPivHouseholderQr().solve(y);
  const double lo = *distinct.begin();
  const double hi = *distinct.rbegin();
  const auto residual = [&](const Eigen::Vector2d& k) { return (y - x * k).squaredNorm(); };
  // Delays, shares and counts cannot go below zero. a + b / gpus is monotone, so it stays
  // non-negative over the data's range when it does at both ends: where the free fit dips
  // below, the least-squares fit under that constraint has the failing end at exactly zero
  // (a = -b / end, one coefficient left), or is zero throughout.
  const bool nonnegative =
      std::all_of(pts.begin(), pts.end(), [](const CurvePoint& p) { return p.value >= 0; });
  const auto at = [](const Eigen::Vector2d& k, double g) { return k(0) + k(1) / g; };
  if (nonnegative && (at(c, lo) < 0 || at(c, hi) < 0)) {
    Eigen::Vector2d best = Eigen::Vector2d::Zero();
    for (const double end : {lo, hi}) {
      Eigen::VectorXd u = x.col(1).array() - 1.0 / end;
      const double uu = u.squaredNorm();
      if (uu <= 0) continue;
      const double b = u.dot(y) / uu;
      const Eigen::Vector2d k(-b / end, b);
      if (at(k, lo) >= -1e-9 && at(k, hi) >= -1e-9 && residual(k) < residual(best)) best = k;
    }
    c = best;
  }
  CapacityFit fit;
  fit.a = c(0);
  fit.b = c(1);
  const double mean = y.mean();
  const double ss_tot = (y.array() - mean).square().sum();
  const double ss_res = residual(c);
  fit.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res <= 1e-12 ? 1.0 : 0.0);
  samples = std::max(samples, 2);
  // The drawing stays within the observed values (a fit's end may overshoot the extreme
  // point); clamping keeps the curve monotone.
  const double y_lo = y.minCoeff(), y_hi = y.maxCoeff();
  for (int i = 0; i < samples; ++i) {
    const double g = lo + (hi - lo) * i / (samples - 1);
    fit.samples.push_back({g, std::clamp(at(c, g), y_lo, y_hi)});
  }
  return fit;
}

}  // namespace slicelab
