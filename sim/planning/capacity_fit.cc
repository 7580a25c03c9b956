#include "sim/planning/capacity_fit.h"

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
  const Eigen::Vector2d c = x.colPivHouseholderQr().solve(y);
  CapacityFit fit;
  fit.a = c(0);
  fit.b = c(1);
  const double mean = y.mean();
  const double ss_tot = (y.array() - mean).square().sum();
  const double ss_res = (y - x * c).squaredNorm();
  fit.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res <= 1e-12 ? 1.0 : 0.0);
  const double lo = *distinct.begin();
  const double hi = *distinct.rbegin();
  samples = std::max(samples, 2);
  // Delays, shares and counts cannot go below zero; where the fitted curve would, the drawing
  // shows zero rather than a value no run can produce.
  const bool nonnegative =
      std::all_of(pts.begin(), pts.end(), [](const CurvePoint& p) { return p.value >= 0; });
  for (int i = 0; i < samples; ++i) {
    const double g = lo + (hi - lo) * i / (samples - 1);
    const double v = fit.a + fit.b / g;
    fit.samples.push_back({g, nonnegative ? std::max(v, 0.0) : v});
  }
  return fit;
}

}  // namespace slicelab
