// Pins down the synthetic workload generator: determinism by seed, pod count and horizon,
// Poisson arrival rate, shape weights over many pods, and duration distributions' bounds.
#include "workloads/inputs/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "workloads/rng.h"

namespace slicelab {
namespace {

PodShape shape(std::string name, double weight, DurationDistribution d = {}) {
  PodShape s;
  s.name = std::move(name);
  s.weight = weight;
  s.duration = d;
  s.request.gpu_count = 1;
  return s;
}

DurationDistribution constant(double v) {
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kConstant;
  d.a = v;
  return d;
}

GeneratorSpec spec_with(std::vector<PodShape> shapes, std::optional<uint64_t> count,
                        std::optional<double> horizon, double per_hour = 3600) {
  GeneratorSpec g;
  g.pod_count = count;
  g.horizon_s = horizon;
  g.arrivals_per_hour = per_hour;
  g.shapes = std::move(shapes);
  return g;
}

bool same_pods(const std::vector<PodSpec>& a, const std::vector<PodSpec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].arrival_s != b[i].arrival_s ||
        a[i].duration_s != b[i].duration_s)
      return false;
  return true;
}

TEST(SimGenerator, PodCountNamesAndRequestFields) {
  PodShape s = shape("infer", 1, constant(60));
  s.request.gpu_milli = 250;
  s.request.gpu_memory_mib = 4096;
  s.request.cpu_milli = 2000;
  s.request.priority = 3;
  s.request.workload_class = "inference";
  s.request.allowed_models = {"T4"};
  s.request.set_slo(120, std::nullopt);
  const auto pods = generate_pods(spec_with({s}, 1000, std::nullopt), 1);
  ASSERT_EQ(pods.size(), 1000U);
  EXPECT_EQ(pods[0].name, "infer-0");
  EXPECT_EQ(pods[999].name, "infer-999");
  for (const auto& p : pods) {
    EXPECT_DOUBLE_EQ(p.duration_s, 60.0);
    EXPECT_EQ(p.gpu_count, 1);
    EXPECT_EQ(p.gpu_milli, 250);
    EXPECT_EQ(p.gpu_memory_mib, 4096);
    EXPECT_EQ(p.cpu_milli, 2000);
    EXPECT_EQ(p.priority, 3);
    EXPECT_EQ(p.workload_class, "inference");
    EXPECT_EQ(p.allowed_models, (std::vector<std::string>{"T4"}));
    EXPECT_EQ(p.slo_max_queue_s(), 120.0);
  }
  // The shape's class and models are shared by its pods, not copied into each.
  EXPECT_EQ(pods[0].workload_class.view().data(), pods[999].workload_class.view().data());
  EXPECT_EQ(pods[0].allowed_models.begin(), pods[999].allowed_models.begin());
  // Arrivals are strictly increasing and positive.
  EXPECT_GT(pods[0].arrival_s, 0.0);
  for (size_t i = 1; i < pods.size(); ++i) EXPECT_GT(pods[i].arrival_s, pods[i - 1].arrival_s);
}

TEST(SimGenerator, SameSeedSamePodsOtherSeedOtherPods) {
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kExponential;
  d.a = 100;
  const auto spec = spec_with({shape("a", 1, d), shape("b", 2, d)}, 500, std::nullopt);
  const auto one = generate_pods(spec, 42);
  EXPECT_TRUE(same_pods(one, generate_pods(spec, 42)));
  EXPECT_FALSE(same_pods(one, generate_pods(spec, 43)));
}

TEST(SimGenerator, ExplicitSeedOverridesTheScenarioSeed) {
  auto spec = spec_with({shape("a", 1, constant(1))}, 50, std::nullopt);
  spec.seed = 9;
  EXPECT_TRUE(same_pods(generate_pods(spec, 1), generate_pods(spec, 2)));
  // Without it the stream is derived from the scenario seed under the label "generator".
  auto derived = spec;
  derived.seed = derive_seed(1, "generator");
  auto implicit = spec;
  implicit.seed.reset();
  EXPECT_TRUE(same_pods(generate_pods(derived, 0), generate_pods(implicit, 1)));
}

TEST(SimGenerator, HorizonBoundsArrivalsAndRateSetsTheirNumber) {
  // 1 pod/s over 3600 s: Poisson with mean 3600 (sd 60); accept +-5 sd.
  const auto pods = generate_pods(spec_with({shape("a", 1, constant(1))}, std::nullopt, 3600.0), 3);
  EXPECT_GT(pods.size(), 3300U);
  EXPECT_LT(pods.size(), 3900U);
  for (const auto& p : pods) EXPECT_LE(p.arrival_s, 3600.0);
}

TEST(SimGenerator, CountAndHorizonStopAtWhicheverComesFirst) {
  const auto by_count = generate_pods(spec_with({shape("a", 1, constant(1))}, 10, 1e9), 3);
  EXPECT_EQ(by_count.size(), 10U);
  const auto by_horizon =
      generate_pods(spec_with({shape("a", 1, constant(1))}, 1'000'000, 100.0), 3);
  EXPECT_LT(by_horizon.size(), 200U);  // mean 100, sd 10
  EXPECT_GT(by_horizon.size(), 50U);
  for (const auto& p : by_horizon) EXPECT_LE(p.arrival_s, 100.0);
}

TEST(SimGenerator, MeanInterArrivalMatchesTheRate) {
  // 20000 pods at 120/h: mean gap 30 s; the last arrival is near 600000 s (+-0.7% sd).
  const auto pods =
      generate_pods(spec_with({shape("a", 1, constant(1))}, 20000, std::nullopt, 120), 4);
  ASSERT_EQ(pods.size(), 20000U);
  EXPECT_NEAR(pods.back().arrival_s / 20000.0, 30.0, 30.0 * 0.035);
}

TEST(SimGenerator, ShapeWeightsAreRespectedOverManyPods) {
  // Weights 1 : 0 : 3 over 20000 pods: b never, c about 75% (sd 0.3%).
  const auto pods = generate_pods(
      spec_with({shape("a", 1), shape("b", 0), shape("c", 3)}, 20000, std::nullopt), 5);
  std::map<std::string, int> n;
  for (const auto& p : pods) ++n[p.name.str().substr(0, p.name.view().find('-'))];
  EXPECT_EQ(n.count("b"), 0U);
  EXPECT_NEAR(n["c"] / 20000.0, 0.75, 0.015);
  EXPECT_NEAR(n["a"] / 20000.0, 0.25, 0.015);
  EXPECT_EQ(n["a"] + n["c"], 20000);
}

TEST(SimGenerator, DiurnalRatePeaksAtThePeakHour) {
  // Amplitude 1, peak at 14:00: rate(t) = base * (1 + cos(2 pi (t - 14h) / 24h)).
  // Expected pods in 12:00-16:00 = base * (4h + 2 * sin(pi/6) * 24h/(2 pi)) = base * 7.82 h;
  // in 00:00-04:00 (around the 02:00 trough) = base * (4h - 3.82 h) = base * 0.18 h.
  auto spec = spec_with({shape("a", 1, constant(1))}, std::nullopt, 86400.0, 600);
  spec.diurnal_amplitude = 1.0;
  spec.diurnal_peak_s = 14 * 3600.0;
  const auto pods = generate_pods(spec, 6);
  int peak = 0, trough = 0;
  for (const auto& p : pods) {
    peak += p.arrival_s >= 12 * 3600.0 && p.arrival_s < 16 * 3600.0 ? 1 : 0;
    trough += p.arrival_s < 4 * 3600.0 ? 1 : 0;
  }
  // Means 4692 and 108; the day's mean total is 600 * 24 = 14400.
  EXPECT_NEAR(peak, 4692, 350);
  EXPECT_NEAR(trough, 108, 60);
  EXPECT_NEAR(static_cast<double>(pods.size()), 14400, 600);
}

// --- duration distributions ---

std::vector<double> draw(const DurationDistribution& d, int n, uint64_t seed = 11) {
  Rng rng(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d.sample(rng));
  return v;
}

TEST(SimDurations, ConstantIsExactAndFlooredAtOneMillisecond) {
  for (const double v : draw(constant(42.5), 10)) EXPECT_DOUBLE_EQ(v, 42.5);
  for (const double v : draw(constant(0.0), 3)) EXPECT_DOUBLE_EQ(v, 0.001);
  DurationDistribution clamped = constant(500);
  clamped.max_s = 100;
  for (const double v : draw(clamped, 3)) EXPECT_DOUBLE_EQ(v, 100.0);
}

TEST(SimDurations, ExponentialRespectsMinAndMax) {
  // Mean 100, clamped to [10, 300]: P(< 10) = 9.5%, P(> 300) = 5%: both clamps are hit.
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kExponential;
  d.a = 100;
  d.min_s = 10;
  d.max_s = 300;
  const auto v = draw(d, 5000);
  EXPECT_DOUBLE_EQ(*std::min_element(v.begin(), v.end()), 10.0);
  EXPECT_DOUBLE_EQ(*std::max_element(v.begin(), v.end()), 300.0);
  const auto at_min = std::count(v.begin(), v.end(), 10.0);
  const auto at_max = std::count(v.begin(), v.end(), 300.0);
  EXPECT_NEAR(static_cast<double>(at_min) / 5000, 1 - std::exp(-0.1), 0.015);
  EXPECT_NEAR(static_cast<double>(at_max) / 5000, std::exp(-3.0), 0.01);
}

TEST(SimDurations, ExponentialMeanWithoutClamps) {
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kExponential;
  d.a = 100;
  const auto v = draw(d, 20000);
  double sum = 0;
  for (const double x : v) sum += x;
  EXPECT_NEAR(sum / 20000, 100.0, 3.0);  // sd of the mean: 0.7
}

TEST(SimDurations, UniformStaysInItsRange) {
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kUniform;
  d.a = 20;
  d.b = 40;
  const auto v = draw(d, 10000);
  double sum = 0;
  for (const double x : v) {
    EXPECT_GE(x, 20.0);
    EXPECT_LT(x, 40.0);
    sum += x;
  }
  EXPECT_NEAR(sum / 10000, 30.0, 0.3);
  EXPECT_LT(*std::min_element(v.begin(), v.end()), 20.1);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 39.9);
}

TEST(SimDurations, LognormalMedianAndClamp) {
  // Median 60, sigma 0.5: the sample median is near 60; max clamps at 200 (P = 0.8%).
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kLognormal;
  d.a = 60;
  d.b = 0.5;
  d.max_s = 200;
  auto v = draw(d, 20001);
  std::sort(v.begin(), v.end());
  EXPECT_NEAR(v[10000], 60.0, 1.5);
  EXPECT_DOUBLE_EQ(v.back(), 200.0);
  EXPECT_GT(v.front(), 0.0);
  // log-space spread: the 84th percentile sits about one sigma up, 60 * e^0.5 = 98.9.
  EXPECT_NEAR(v[static_cast<size_t>(0.8413 * 20000)], 60 * std::exp(0.5), 4.0);
}

TEST(SimDurations, SameSeedSameDraws) {
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kLognormal;
  d.a = 60;
  d.b = 1;
  EXPECT_EQ(draw(d, 100, 5), draw(d, 100, 5));
  EXPECT_NE(draw(d, 100, 5), draw(d, 100, 6));
}

}  // namespace
}  // namespace slicelab
