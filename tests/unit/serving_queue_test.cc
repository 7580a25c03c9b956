// Pins down the serving model's queue: closed forms on hand-computed values, the request-level
// simulation against M/M/1, M/M/c, M/G/1 and processor sharing, the birth-death chain against
// the same closed forms, and latency quantiles read off the logarithmic grid.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/modes/whole_card/whole_card.h"
#include "sim/serving/latency_grid.h"
#include "sim/serving/queueing_formulas.h"
#include "sim/serving/replica_chain.h"
#include "sim/serving/request_level_sim.h"

namespace slicelab {
namespace {

ServingReplica replica(double rate, ServiceTime service, int concurrency, double request_sm,
                       int max_queue = 100000) {
  ServingReplica r;
  r.serving = {service, concurrency, request_sm, max_queue};
  r.arrival_rate = rate;
  return r;
}

RequestSimReplica simulate_one(const ServingReplica& r, double horizon_s, uint64_t seed = 7) {
  const WholeCard mode;
  const std::vector<ServingReplica> rs{r};
  return simulate_requests(mode, rs, {},
                           {.horizon_s = horizon_s, .warmup_s = 200.0, .seed = seed})[0];
}

// --- closed forms, by hand ---

TEST(QueueingFormulas, MM1) {
  // lambda 8, mu 10: response exponential with rate 2.
  EXPECT_DOUBLE_EQ(mm1_mean_response(8, 10), 0.5);
  EXPECT_NEAR(mm1_response_quantile(8, 10, 0.99), std::log(100.0) / 2, 1e-12);
}

TEST(QueueingFormulas, ErlangCAndMMc) {
  // c = 2, a = 1.5: C = (a^2/2! / (1 - 0.75)) / (1 + 1.5 + 4.5) = 4.5 / 7.
  EXPECT_NEAR(erlang_c(2, 1.5), 4.5 / 7, 1e-12);
  // lambda 15, mu 10, c 2: wait C / (20 - 15) = 0.128571.., plus 0.1 of service.
  EXPECT_NEAR(mmc_mean_response(15, 10, 2), 4.5 / 7 / 5 + 0.1, 1e-12);
  // c = 1 is M/M/1.
  EXPECT_NEAR(mmc_response_quantile(8, 10, 1, 0.99), mm1_response_quantile(8, 10, 0.99), 1e-7);
  EXPECT_NEAR(mmc_response_survival(15, 10, 2, 0.0), 1.0, 1e-12);
}

TEST(QueueingFormulas, PollaczekKhinchineAndProcessorSharing) {
  // Constant 0.1 s at 5/s: rho 0.5, wait 5 x 0.01 / (2 x 0.5) = 0.05.
  EXPECT_NEAR(mg1_mean_response(5, 0.1, 0.01), 0.15, 1e-12);
  // Exponential service: PK gives the M/M/1 mean.
  EXPECT_NEAR(mg1_mean_response(8, 0.1, 0.02), 0.5, 1e-12);
  EXPECT_NEAR(mg1_ps_mean_response(5, 0.1), 0.2, 1e-12);
}

// --- the request-level simulation against them ---

#ifdef SLICELAB_SANITIZED
// Sanitized builds run some 30 times slower: a quarter of the requests, twice the band.
constexpr double kClosedFormLength = 0.25;
constexpr double kClosedFormBand = 2.0;
#else
constexpr double kClosedFormLength = 1.0;
constexpr double kClosedFormBand = 1.0;
#endif

TEST(RequestLevelSim, MM1MeanAndP99) {
  auto out =
      simulate_one(replica(8, ServiceTime::make(0.1, 1, true), 1, 1.0), 40000 * kClosedFormLength);
  ASSERT_GT(static_cast<double>(out.latencies_s.size()), 300000 * kClosedFormLength);
  fmt::print("M/M/1 mean {:.4f} p99 {:.4f}\n", sample_mean(out.latencies_s),
             sample_quantile(out.latencies_s, 0.99));
  EXPECT_NEAR(sample_mean(out.latencies_s), 0.5, 0.5 * 0.04 * kClosedFormBand);
  EXPECT_NEAR(sample_quantile(out.latencies_s, 0.99), std::log(100.0) / 2,
              2.303 * 0.05 * kClosedFormBand);
  EXPECT_NEAR(out.busy_fraction(), 0.8, 0.01 * kClosedFormBand);
  EXPECT_EQ(out.dropped, 0U);
}

TEST(RequestLevelSim, MMcFromABatchOfTwoHalfGpuRequests) {
  // Two requests of half the SMs each run at full speed side by side: two servers.
  auto out =
      simulate_one(replica(15, ServiceTime::make(0.1, 1, true), 2, 0.5), 20000 * kClosedFormLength);
  fmt::print("M/M/2 mean {:.4f} p99 {:.4f} (closed form {:.4f} {:.4f})\n",
             sample_mean(out.latencies_s), sample_quantile(out.latencies_s, 0.99),
             mmc_mean_response(15, 10, 2), mmc_response_quantile(15, 10, 2, 0.99));
  EXPECT_NEAR(sample_mean(out.latencies_s), mmc_mean_response(15, 10, 2),
              0.2286 * 0.03 * kClosedFormBand);
  EXPECT_NEAR(sample_quantile(out.latencies_s, 0.99), mmc_response_quantile(15, 10, 2, 0.99),
              mmc_response_quantile(15, 10, 2, 0.99) * 0.05 * kClosedFormBand);
}

TEST(RequestLevelSim, MG1ConstantServiceMatchesPollaczekKhinchine) {
  auto out = simulate_one(replica(5, ServiceTime::make(0.1, 0), 1, 1.0), 20000 * kClosedFormLength);
  fmt::print("M/D/1 mean {:.4f}\n", sample_mean(out.latencies_s));
  EXPECT_NEAR(sample_mean(out.latencies_s), 0.15, 0.15 * 0.02 * kClosedFormBand);
  // Nobody is faster than the service time.
  std::vector<double> v = out.latencies_s;
  EXPECT_NEAR(sample_quantile(v, 0.001), 0.1, 1e-9);
}

TEST(RequestLevelSim, ProcessorSharingIsInsensitiveToTheServiceTimeDistribution) {
  // Unbounded batch of whole-GPU requests: processor sharing; a lognormal of cv 2.
  auto out =
      simulate_one(replica(5, ServiceTime::make(0.1, 2.0), 100000, 1.0), 80000 * kClosedFormLength);
  fmt::print("M/G/1-PS mean {:.4f}\n", sample_mean(out.latencies_s));
  EXPECT_NEAR(sample_mean(out.latencies_s), mg1_ps_mean_response(5, 0.1),
              0.2 * 0.04 * kClosedFormBand);
}

TEST(RequestLevelSim, AFullQueueDropsArrivals) {
  // M/M/1/K with K = 1 + 2 waiting, rho = 1: each of the 4 states has probability 1/4.
  auto out = simulate_one(replica(10, ServiceTime::make(0.1, 1, true), 1, 1.0, 2),
                          20000 * kClosedFormLength);
  fmt::print("M/M/1/3 drop {:.4f}\n",
             static_cast<double>(out.dropped) / static_cast<double>(out.arrived));
  EXPECT_NEAR(static_cast<double>(out.dropped) / static_cast<double>(out.arrived), 0.25,
              0.01 * kClosedFormBand);
}

TEST(RequestLevelSim, SameSeedSameLatencies) {
  const auto r = replica(6, ServiceTime::make(0.1, 0.5), 2, 0.7);
  EXPECT_EQ(simulate_one(r, 500, 3).latencies_s, simulate_one(r, 500, 3).latencies_s);
  EXPECT_NE(simulate_one(r, 500, 3).latencies_s, simulate_one(r, 500, 4).latencies_s);
}

TEST(RequestLevelSim, RefusesAReplicaItCannotServe) {
  const WholeCard mode;
  std::vector<ServingReplica> rs{replica(1, ServiceTime::make(0.1, 1), 0, 1.0)};
  EXPECT_THROW(simulate_requests(mode, rs, {}, {}), std::invalid_argument);
  rs[0] = replica(1, ServiceTime::make(0.1, 1), 1, 1.5);
  EXPECT_THROW(simulate_requests(mode, rs, {}, {}), std::invalid_argument);
}

// --- the chain, exact where the closed forms are ---

std::vector<double> full_speed(int k) {
  return std::vector<double>(static_cast<size_t>(k), 1.0);
}

TEST(ReplicaChain, MM1AndMMcAreExact) {
  ReplicaServing one{ServiceTime::make(0.1, 1, true), 1, 1.0, 100000};
  const ReplicaQueueing q1 = solve_replica_chain(one, 8, full_speed(1));
  EXPECT_NEAR(q1.mean_response_s, 0.5, 1e-9);
  EXPECT_NEAR(q1.busy, 0.8, 1e-12);
  EXPECT_NEAR(q1.p_wait, 0.8, 1e-12);  // M/M/1: an arrival waits when the server is busy
  ReplicaServing two{ServiceTime::make(0.1, 1, true), 2, 0.5, 100000};
  const ReplicaQueueing q2 = solve_replica_chain(two, 15, full_speed(2));
  EXPECT_NEAR(q2.mean_response_s, mmc_mean_response(15, 10, 2), 1e-9);
  EXPECT_NEAR(q2.p_wait, erlang_c(2, 1.5), 1e-9);
  EXPECT_NEAR(q2.wait_mean_s, 1.0 / (20 - 15), 1e-9);
}

TEST(ReplicaChain, ProcessorSharingMean) {
  // Whole-GPU requests share it: with j in service each runs at 1/j.
  const int k = 2000;
  std::vector<double> speed(k);
  for (int j = 1; j <= k; ++j) speed[static_cast<size_t>(j) - 1] = 1.0 / j;
  ReplicaServing ps{ServiceTime::make(0.1, 2.0), k, 1.0, 0};
  const ReplicaQueueing q = solve_replica_chain(ps, 5, speed);
  EXPECT_NEAR(q.mean_response_s, 0.2, 1e-9);
  EXPECT_NEAR(q.stretch, 2.0, 1e-9);
}

TEST(ReplicaChain, FiniteQueueDropsAsMM1K) {
  // M/M/1/K, rho = 0.9, K = 1 + 4: drop = (1 - r) r^K / (1 - r^(K+1)).
  ReplicaServing s{ServiceTime::make(0.1, 1, true), 1, 1.0, 4};
  const ReplicaQueueing q = solve_replica_chain(s, 9, full_speed(1));
  const double r = 0.9;
  EXPECT_NEAR(q.drop_fraction, (1 - r) * std::pow(r, 5) / (1 - std::pow(r, 6)), 1e-12);
}

TEST(ReplicaChain, OverloadWithALongQueueStaysFinite) {
  // Three times the capacity and a queue of 100,000: r^q overflows a double.
  ReplicaServing s{ServiceTime::make(0.1, 1, true), 1, 1.0, 100000};
  const ReplicaQueueing q = solve_replica_chain(s, 30, full_speed(1));
  EXPECT_NEAR(q.drop_fraction, 2.0 / 3.0, 1e-9);
  EXPECT_NEAR(q.busy, 1.0, 1e-12);
  EXPECT_TRUE(std::isfinite(q.mean_response_s));
  EXPECT_GT(q.mean_response_s, 9000.0);  // about 100,000 waiting at 10 per second
}

// --- quantiles read off the grid ---

std::vector<double> cdf_of(const ResponseModel& m, const ServiceTime& s) {
  std::vector<double> cdf(LatencyGrid::kPoints, 0.0);
  add_response_cdf(m, ServiceSurvivalTable(s), 1.0, cdf);
  return cdf;
}

TEST(LatencyGrid, QuantilesOfTheServiceTimeAlone) {
  for (const ServiceTime& s : {ServiceTime::make(0.1, 1, true), ServiceTime::make(0.05, 0.5),
                               ServiceTime::make(0.2, 2.0)}) {
    const auto cdf = cdf_of({}, s);
    for (const double p : {0.5, 0.95, 0.99})
      EXPECT_NEAR(LatencyGrid::quantile(cdf, 1.0, p), s.quantile(p), s.quantile(p) * 0.01)
          << p << " cv " << s.cv;
  }
}

TEST(LatencyGrid, TheMMcResponseFromWaitAndService) {
  ResponseModel m;
  m.p_wait = erlang_c(2, 1.5);
  m.entering[0] = {1 - m.p_wait, 1.0};
  m.wait_mean_s = 0.2;
  const auto cdf = cdf_of(m, ServiceTime::make(0.1, 1, true));
  for (const double p : {0.5, 0.9, 0.99}) {
    const double exact = mmc_response_quantile(15, 10, 2, p);
    EXPECT_NEAR(LatencyGrid::quantile(cdf, 1.0, p), exact, exact * 0.015) << p;
  }
}

TEST(LatencyGrid, MixturesAddAndOverloadIsInfinite) {
  std::vector<double> cdf(LatencyGrid::kPoints, 0.0);
  add_response_cdf({}, ServiceSurvivalTable(ServiceTime::make(0.1, 0)), 1.0, cdf);
  add_response_cdf({}, ServiceSurvivalTable(ServiceTime::make(1.0, 0)), 1.0, cdf);
  // Half at 0.1 s, half at 1 s: the median is at the first step, p75 at the second.
  EXPECT_NEAR(LatencyGrid::quantile(cdf, 2.0, 0.4), 0.1, 0.1 * 0.05);
  EXPECT_NEAR(LatencyGrid::quantile(cdf, 2.0, 0.75), 1.0, 1.0 * 0.05);
  // A third request that never finishes within the grid.
  EXPECT_TRUE(std::isinf(LatencyGrid::quantile(cdf, 3.0, 0.99)));
  EXPECT_EQ(LatencyGrid::quantile(cdf, 0.0, 0.5), 0.0);
}

}  // namespace
}  // namespace slicelab
