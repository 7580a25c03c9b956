// How an inference service's request rate changes over a run: constant, diurnal (as the
// generator's arrivals), or piecewise constant from a CSV of rate per interval.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace slicelab {

inline constexpr double kMaxRequestRate = 1e7;  // requests per second, per service
inline constexpr int64_t kMaxRateSteps = 100'000;

// Requests per second at time t (seconds from the run's start). Contract (readers check it):
// rates in [0, kMaxRequestRate]; diurnal amplitude in [0, 1]; steps sorted by strictly
// increasing start, the first at 0, at most kMaxRateSteps.
struct RateCurve {
  enum class Kind : uint8_t { kConstant, kDiurnal, kSteps };
  Kind kind = Kind::kConstant;
  double rate = 0.0;          // constant: the rate; diurnal: its daily mean
  double amplitude = 0.0;     // diurnal: the rate swings +-amplitude x mean over a day
  double peak_s = 14 * 3600;  // diurnal: time of day of the peak
  // steps: (start, rate), each rate holding until the next start (the last one to the end).
  std::vector<std::pair<double, double>> steps;

  static RateCurve constant(double rate) { return {Kind::kConstant, rate, 0.0, 0.0, {}}; }
  static RateCurve diurnal(double mean, double amplitude, double peak_s) {
    return {Kind::kDiurnal, mean, amplitude, peak_s, {}};
  }

  double at(double t) const;
  // The mean rate over [t0, t1) (t1 > t0): exact for every kind (the diurnal cosine's integral).
  double mean(double t0, double t1) const;
  // The highest rate over [0, horizon).
  double peak(double horizon_s) const;
};

}  // namespace slicelab
