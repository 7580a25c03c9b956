#include "sim/metrics/welch_difference.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>

#include "sim/metrics/seed_statistics.h"

namespace slicelab {

UnpairedDifference welch_difference(std::span<const double> a, std::span<const double> b) {
  const Estimate ea = estimate(a), eb = estimate(b);
  UnpairedDifference u;
  if (ea.n == 0 || eb.n == 0) return u;
  u.difference = eb.mean - ea.mean;
  if (ea.n < 2 && eb.n < 2) return u;
  const double va = ea.n > 1 ? ea.stddev * ea.stddev : eb.stddev * eb.stddev;
  const double vb = eb.n > 1 ? eb.stddev * eb.stddev : ea.stddev * ea.stddev;
  const double na = static_cast<double>(ea.n), nb = static_cast<double>(eb.n);
  const double qa = va / na, qb = vb / nb;
  const double scale = std::max({1.0, std::abs(ea.mean), std::abs(eb.mean)});
  if (qa + qb <= 1e-18 * scale * scale) {
    // No spread on either side: no noise to hide a difference in.
    u.half_width = 0;
    u.beyond_noise = std::abs(u.difference) > 1e-9 * scale;
    return u;
  }
  // Welch-Satterthwaite; a borrowed variance carries the lending side's degrees of freedom.
  double df = 0;
  if (ea.n > 1 && eb.n > 1)
    df = (qa + qb) * (qa + qb) / (qa * qa / (na - 1) + qb * qb / (nb - 1));
  else
    df = static_cast<double>(std::max(ea.n, eb.n) - 1);
  const boost::math::students_t dist(df);
  u.degrees_of_freedom = df;
  u.half_width = boost::math::quantile(dist, 1 - (1 - kConfidence) / 2) * std::sqrt(qa + qb);
  u.beyond_noise = std::abs(u.difference) > *u.half_width;
  return u;
}

}  // namespace slicelab
