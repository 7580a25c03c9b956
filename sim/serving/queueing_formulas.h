// Closed forms of classical queues (M/M/1, M/M/c, M/G/1, M/G/1 processor sharing): the
// references the request-level simulation is tested against, and pieces of the approximation.
#pragma once

namespace slicelab {

// Arrival rate lambda, service rate mu per server (1 / mean service time), c servers. Every
// function requires a stable queue (lambda < c mu) and returns seconds.

// M/M/1 FCFS: the response time is exponential with rate mu - lambda.
double mm1_mean_response(double lambda, double mu);
double mm1_response_quantile(double lambda, double mu, double p);

// Erlang's C formula: the probability that an arrival waits, c servers offered a = lambda / mu.
double erlang_c(int c, double a);
// M/M/c FCFS: mean wait C / (c mu - lambda); the response is the wait (0 with probability 1 - C,
// else exponential with rate c mu - lambda) plus an exponential service of rate mu.
double mmc_mean_response(double lambda, double mu, int c);
double mmc_response_survival(double lambda, double mu, int c, double t);
double mmc_response_quantile(double lambda, double mu, int c, double p);

// M/G/1 FCFS (Pollaczek-Khinchine): mean wait lambda E[S^2] / (2 (1 - rho)), plus E[S].
double mg1_mean_response(double lambda, double mean_s, double second_moment_s);

// M/G/1 processor sharing: mean response E[S] / (1 - rho), whatever the service distribution.
double mg1_ps_mean_response(double lambda, double mean_s);

// The t at which a decreasing survival function crosses 1 - p, by bisection to a relative 1e-9
// (the survival must be continuous and reach 1 - p below `hi`, which doubles until it does).
template <class Survival>
double survival_quantile(const Survival& survival, double p, double hi = 1.0) {
  const double target = 1.0 - p;
  double lo = 0;
  for (int i = 0; i < 200 && survival(hi) > target; ++i) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (survival(mid) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace slicelab
