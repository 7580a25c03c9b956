#include "sim/serving/queueing_formulas.h"

#include <cmath>

namespace slicelab {

double mm1_mean_response(double lambda, double mu) {
  return 1.0 / (mu - lambda);
}

double mm1_response_quantile(double lambda, double mu, double p) {
  return -std::log1p(-p) / (mu - lambda);
}

double erlang_c(int c, double a) {
  // Erlang B by its recurrence (stable for large c), then C = B / (1 - rho (1 - B)).
  double b = 1.0;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  const double rho = a / c;
  return b / (1.0 - rho * (1.0 - b));
}

double mmc_mean_response(double lambda, double mu, int c) {
  return erlang_c(c, lambda / mu) / (c * mu - lambda) + 1.0 / mu;
}

double mmc_response_survival(double lambda, double mu, int c, double t) {
  const double wait = erlang_c(c, lambda / mu);
  const double theta = c * mu - lambda;
  const double service = std::exp(-mu * t);
  // Wait + service for one who waits: the sum of exponentials of rates theta and mu.
  const double both = std::abs(theta - mu) < 1e-12 * mu
                          ? (1.0 + mu * t) * std::exp(-mu * t)
                          : (theta * std::exp(-mu * t) - mu * std::exp(-theta * t)) / (theta - mu);
  return (1.0 - wait) * service + wait * both;
}

double mmc_response_quantile(double lambda, double mu, int c, double p) {
  return survival_quantile([&](double t) { return mmc_response_survival(lambda, mu, c, t); }, p,
                           1.0 / mu);
}

double mg1_mean_response(double lambda, double mean_s, double second_moment_s) {
  const double rho = lambda * mean_s;
  return lambda * second_moment_s / (2.0 * (1.0 - rho)) + mean_s;
}

double mg1_ps_mean_response(double lambda, double mean_s) {
  return mean_s / (1.0 - lambda * mean_s);
}

}  // namespace slicelab
