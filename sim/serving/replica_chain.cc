#include "sim/serving/replica_chain.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace slicelab {
namespace {

// sum_{l=0}^{q-1} r^l and sum_{l=0}^{q-1} (l + 1) r^l, stable near r = 1.
struct Geometric {
  double g0 = 0;
  double g1 = 0;
};
Geometric geometric(double r, int q) {
  if (q <= 0) return {};
  const double qd = q;
  if (std::abs(1 - r) < 1e-7) return {qd, qd * (qd + 1) / 2};
  const double rq = std::pow(r, qd);
  const double g0 = (1 - rq) / (1 - r);
  const double g1 = (1 - (qd + 1) * rq + qd * rq * r) / ((1 - r) * (1 - r));
  return {g0, g1};
}

// Admitted arrivals finding n < k in service join with n + 1 (PASTA: weight pi_n), those that
// wait join a full batch. Groups of about equal weight; then one scale of (stretch - 1) so that
// the mixture's mean is the chain's mean stretch.
void group_stretches(std::span<const double> pi, double admitted_mass,
                     std::span<const double> speed, ReplicaQueueing& out) {
  const size_t k = speed.size();
  const double target = (1.0 - out.p_wait) / static_cast<double>(ReplicaQueueing::kGroups);
  size_t g = 0;
  StretchGroup acc;
  const auto close = [&] {
    acc.stretch /= acc.weight;
    out.entering[g++] = acc;
    acc = {};
  };
  for (size_t j = 1; j <= k; ++j) {
    const double w = pi[j - 1] / admitted_mass;
    acc.weight += w;
    acc.stretch += w / speed[j - 1];
    // Close a group once it holds its share, unless the next batch size runs at the same speed
    // (the same stretch: merging them is exact).
    if (acc.weight >= target && g + 1 < ReplicaQueueing::kGroups && j < k &&
        speed[j] != speed[j - 1])
      close();
  }
  if (acc.weight > 0) close();
  out.entering_groups = g;
  out.waiting_stretch = 1.0 / speed[k - 1];
  double mix = out.p_wait * out.waiting_stretch;
  double weight = out.p_wait;
  for (size_t i = 0; i < out.entering_groups; ++i) {
    mix += out.entering[i].weight * out.entering[i].stretch;
    weight += out.entering[i].weight;
  }
  mix /= weight > 0 ? weight : 1.0;
  const double alpha = mix > 1.0 + 1e-12 ? (out.stretch - 1.0) / (mix - 1.0) : 1.0;
  for (size_t i = 0; i < out.entering_groups; ++i)
    out.entering[i].stretch = 1.0 + alpha * (out.entering[i].stretch - 1.0);
  out.waiting_stretch = 1.0 + alpha * (out.waiting_stretch - 1.0);
}

// P(j in service) for j = 1..k from pi (normalised by z; the queue's tail counts as j = k),
// merged by demand min(1, j s) into at most kLevels levels.
void demand_levels(std::span<const double> pi, double tail, double z, double s,
                   ReplicaQueueing& out) {
  const size_t k = pi.size() - 1;
  // Distinct demands: j = 1..min(k, ceil(1 / s)); every j beyond asks 1.
  const auto distinct = std::min(k, static_cast<size_t>(std::ceil(1.0 / s - 1e-9)));
  const double target = out.busy / static_cast<double>(ReplicaQueueing::kLevels);
  size_t g = 0;
  DemandLevel acc;
  const auto close = [&] {
    acc.demand /= acc.probability;
    out.levels[g++] = acc;
    acc = {};
  };
  for (size_t j = 1; j <= distinct; ++j) {
    double p = pi[j] / z;
    if (j == distinct) {
      for (size_t i = j + 1; i <= k; ++i) p += pi[i] / z;
      p += tail / z;
    }
    acc.probability += p;
    acc.demand += p * std::min(1.0, static_cast<double>(j) * s);
    const bool last = j == distinct;
    // Merge only when there are more demands than levels.
    if (!last && acc.probability > 0 &&
        (distinct <= ReplicaQueueing::kLevels ||
         (acc.probability >= target && g + 1 < ReplicaQueueing::kLevels)))
      close();
  }
  if (acc.probability > 0) close();
  out.level_count = g;
}

}  // namespace

ReplicaQueueing solve_replica_chain(const ReplicaServing& serving, double lambda,
                                    std::span<const double> speed, std::vector<double>& pi) {
  const int k = serving.concurrency;
  assert(static_cast<int>(speed.size()) == k);
  const double m = serving.service.mean_s;
  const double s = serving.request_sm;
  ReplicaQueueing out;
  const auto mu = [&](int j) { return j * speed[static_cast<size_t>(j) - 1] / m; };
  out.load = lambda / mu(k);
  out.entering[0] = {1.0, 1.0 / speed[0]};
  out.entering_groups = 1;
  out.stretch = 1.0 / speed[0];
  out.mean_response_s = out.stretch * m;
  if (lambda <= 0) return out;

  const double r = lambda / mu(k);
  const int q = serving.max_queue;
  const double cv = serving.service.cv;
  const double variability = (1.0 + cv * cv) / 2.0;
  if (r > 1 && q * std::log(r) > 300) {
    // Overloaded with a long queue: r^q would overflow, and every state below the full batch
    // weighs less than e^-300 against the full queue. From the top, the queue holds q - i with
    // weight u^i (u = 1 / r), i = 0..q; an arrival at q - i (i >= 1) waits q - i + 1 departures.
    const double u = 1.0 / r;
    const double z_top = 1.0 + u / (1 - u);
    out.busy = 1.0;
    out.mean_in_service = k;
    out.mean_in_service_busy = k;
    out.mean_share = k * speed[static_cast<size_t>(k) - 1] * s;
    out.idle_arrivals = 0.0;
    out.drop_fraction = 1.0 / z_top;
    out.p_wait = 1.0;
    // E[q - i + 1] over i >= 1 with weights u^i: q + 1 - 1 / (1 - u).
    out.wait_mean_s = (q + 1 - 1.0 / (1 - u)) / mu(k) * variability;
    out.stretch = std::max(1.0, 1.0 / speed[static_cast<size_t>(k) - 1]);
    out.waiting_stretch = out.stretch;
    out.entering_groups = 0;
    out.levels[0] = {1.0, std::min(1.0, k * s)};
    out.level_count = 1;
    out.mean_response_s = out.wait_mean_s + out.stretch * m;
    return out;
  }

  // Unnormalised pi_0..pi_k, rescaled whenever they grow large, then the geometric tail.
  pi.resize(static_cast<size_t>(k) + 1);
  pi[0] = 1.0;
  double z = 1.0;
  for (int j = 1; j <= k; ++j) {
    pi[static_cast<size_t>(j)] = pi[static_cast<size_t>(j) - 1] * lambda / mu(j);
    z += pi[static_cast<size_t>(j)];
    if (z > 1e200) {
      for (int i = 0; i <= j; ++i) pi[static_cast<size_t>(i)] *= 1e-200;
      z *= 1e-200;
    }
  }
  const double pi_k = pi[static_cast<size_t>(k)];
  const Geometric gq = geometric(r, q);
  // States k+1..k+q: pi_k r^l, l = 1..q; their sum is pi_k r g0(q).
  const double tail = pi_k * r * gq.g0;
  z += tail;
  double in_service = tail * k;
  double share = tail * k * speed[static_cast<size_t>(k) - 1] * s;
  for (int j = 1; j <= k; ++j) {
    in_service += pi[static_cast<size_t>(j)] * j;
    share += pi[static_cast<size_t>(j)] * j * speed[static_cast<size_t>(j) - 1] * s;
  }
  const double pi_full = pi_k * std::pow(r, q);

  const double pi_0 = pi[0] / z;
  out.busy = 1.0 - pi_0;
  out.mean_in_service = in_service / z;
  out.mean_in_service_busy = out.busy > 0 ? out.mean_in_service / out.busy : 0.0;
  out.mean_share = share / z;
  out.idle_arrivals = pi_0;
  out.drop_fraction = pi_full / z;
  const double admitted = 1.0 - out.drop_fraction;
  // Arrivals in states k..k+q-1 wait l + 1 departures at rate mu_k (l = n - k).
  const double waiting_mass = pi_k * gq.g0 / z;
  out.p_wait = admitted > 0 ? waiting_mass / admitted : 0.0;
  out.wait_mean_s = gq.g0 > 0 ? gq.g1 / gq.g0 / mu(k) * variability : 0.0;
  const double throughput = lambda * admitted;
  const double time_in_service = throughput > 0 ? out.mean_in_service / throughput : m;
  out.stretch = std::max(1.0, time_in_service / m);
  out.mean_response_s = out.p_wait * out.wait_mean_s + out.stretch * m;
  group_stretches(std::span(pi).first(static_cast<size_t>(k)), z * admitted, speed, out);
  demand_levels(pi, tail, z, s, out);
  double w_sum = 0, m1 = 0, m2 = 0;
  for (int j = 1; j <= k; ++j) {
    const double w = (pi[static_cast<size_t>(j)] + (j == k ? tail : 0.0)) * j;
    const double st = 1.0 / speed[static_cast<size_t>(j) - 1];
    w_sum += w;
    m1 += w * st;
    m2 += w * st * st;
  }
  if (w_sum > 0 && m1 > 0) {
    m1 /= w_sum;
    m2 /= w_sum;
    out.stretch_cv = std::sqrt(std::max(0.0, m2 - m1 * m1) * out.busy) / m1;
  }
  return out;
}

}  // namespace slicelab
