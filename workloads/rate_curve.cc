#include "workloads/rate_curve.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace slicelab {
namespace {

constexpr double kDay = 86400.0;

// Index of the step holding at t.
size_t step_at(const std::vector<std::pair<double, double>>& steps, double t) {
  const auto it = std::upper_bound(steps.begin(), steps.end(), t,
                                   [](double x, const auto& s) { return x < s.first; });
  return it == steps.begin() ? 0 : static_cast<size_t>(it - steps.begin()) - 1;
}

}  // namespace

double RateCurve::at(double t) const {
  switch (kind) {
    case Kind::kConstant:
      return rate;
    case Kind::kDiurnal:
      return rate * (1.0 + amplitude * std::cos(2 * std::numbers::pi * (t - peak_s) / kDay));
    case Kind::kSteps:
      return steps.empty() ? 0.0 : steps[step_at(steps, t)].second;
  }
  return 0.0;
}

double RateCurve::mean(double t0, double t1) const {
  if (!(t1 > t0)) return at(t0);
  switch (kind) {
    case Kind::kConstant:
      return rate;
    case Kind::kDiurnal: {
      const double w = 2 * std::numbers::pi / kDay;
      const double integral = (std::sin(w * (t1 - peak_s)) - std::sin(w * (t0 - peak_s))) / w;
      return rate * (1.0 + amplitude * integral / (t1 - t0));
    }
    case Kind::kSteps: {
      if (steps.empty()) return 0.0;
      double sum = 0;
      for (size_t i = step_at(steps, t0); i < steps.size() && steps[i].first < t1; ++i) {
        const double a = std::max(t0, steps[i].first);
        const double b = i + 1 < steps.size() ? std::min(t1, steps[i + 1].first) : t1;
        if (b > a) sum += steps[i].second * (b - a);
      }
      return sum / (t1 - t0);
    }
  }
  return 0.0;
}

double RateCurve::peak(double horizon_s) const {
  switch (kind) {
    case Kind::kConstant:
      return rate;
    case Kind::kDiurnal: {
      // The daily peak when the run reaches it, else the highest point of the part it covers.
      if (horizon_s >= kDay || std::fmod(peak_s, kDay) < horizon_s) return rate * (1 + amplitude);
      double best = std::max(at(0), at(horizon_s));
      return best;
    }
    case Kind::kSteps: {
      double best = 0;
      for (const auto& [start, r] : steps)
        if (start < horizon_s) best = std::max(best, r);
      return best;
    }
  }
  return 0.0;
}

}  // namespace slicelab
