// The serving model's approximation over a day of an inference cluster: 12 services of 4
// replicas, two replicas per GPU (whole card: one), a batch pod beside a third of them, the
// rate following a diurnal curve that peaks at 2,020 requests/s in all; every minute,
// every GPU's replicas solved and their latency written on the grid, and each service's p50,
// p95 and p99 read. What the engine will pay per policy for a day of services
// (docs/performance.md#inference-services).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/modes/interposer/interposer_share.h"
#include "sim/modes/mig/mig_sharing.h"
#include "sim/modes/mps/mps.h"
#include "sim/modes/time_slice/time_slice.h"
#include "sim/modes/whole_card/whole_card.h"
#include "sim/serving/gpu_serving_approx.h"
#include "sim/serving/latency_grid.h"
#include "workloads/rate_curve.h"

namespace slicelab {
namespace {

constexpr int kServices = 12;
constexpr int kReplicas = 4;

std::unique_ptr<SharingMode> mode_of(int kind) {
  switch (kind) {
    case 1:
      return std::make_unique<TimeSlice>(4, 0.05, InterferenceCoefficients{0.15, 0.01});
    case 2:
      return std::make_unique<Mps>(Mps::Config{.interference = {0.80, 0.005}});
    case 3:
      return std::make_unique<MigSharing>(std::make_shared<MigSettings>());
    case 4:
      return std::make_unique<InterposerShare>(InterposerShare::Config{23.0, 1.0, {0.15, 0.01}});
    default:
      return std::make_unique<WholeCard>();
  }
}

void BM_ServingApproxDay(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const auto mode = mode_of(kind);
  const bool shared = kind != 0;
  // Service s: 20-75 ms requests, batches of 8 of a quarter of the SMs each.
  std::vector<ServingReplica> proto(kServices);
  std::vector<RateCurve> rates;
  std::vector<ServiceSurvivalTable> tables;
  for (int s = 0; s < kServices; ++s) {
    ServingReplica& r = proto[static_cast<size_t>(s)];
    r.serving = {ServiceTime::make(0.02 + 0.005 * s, 0.5 + 0.1 * (s % 3)), 8, 0.25, 1000};
    r.load.bandwidth = 0.35;
    r.load.launch_khz = 8.0;
    r.load.cap = shared ? 0.5 : 1.0;
    r.load.sm_cap = kind == 3 ? 0.5 : 1.0;
    // At the peak each replica runs at 85% of what half a GPU serves it (2 / mean requests/s).
    const double capacity = 2.0 / r.serving.service.mean_s;
    rates.push_back(RateCurve::diurnal(0.85 * capacity * kReplicas / 1.6, 0.6, 14 * 3600.0));
    tables.emplace_back(r.serving.service);
  }
  // GPU g holds replicas of services (g) and (g + 1) mod 12 (shared modes), or one replica.
  const int per_gpu = shared ? 2 : 1;
  const int gpus = kServices * kReplicas / per_gpu;
  BackgroundTenant batch;
  batch.load = {0.6, 0, 1.0, 0.5, 0.5, 2.0};
  std::vector<ServingReplica> on_gpu(static_cast<size_t>(per_gpu));
  std::vector<int> service_of(static_cast<size_t>(per_gpu));
  std::vector<ReplicaApprox> out(static_cast<size_t>(per_gpu));
  std::vector<std::vector<double>> interval(kServices, std::vector<double>(LatencyGrid::kPoints));
  std::vector<std::vector<double>> run(kServices, std::vector<double>(LatencyGrid::kPoints));
  GpuServingApprox approx(*mode);
  double checksum = 0;
  int outside = 0;
  double rounds = 0, solves = 0;
  for (auto _ : state) {
    for (int minute = 0; minute < 1440; ++minute) {
      const double t0 = minute * 60.0;
      for (auto& c : interval) std::fill(c.begin(), c.end(), 0.0);
      for (int g = 0; g < gpus; ++g) {
        for (int k = 0; k < per_gpu; ++k) {
          const int s = (g / (shared ? 2 : 4) + k) % kServices;
          service_of[static_cast<size_t>(k)] = s;
          on_gpu[static_cast<size_t>(k)] = proto[static_cast<size_t>(s)];
          on_gpu[static_cast<size_t>(k)].arrival_rate =
              rates[static_cast<size_t>(s)].mean(t0, t0 + 60) / kReplicas;
        }
        const bool with_batch = g % 3 == 0 && shared;
        approx.solve(on_gpu, with_batch ? std::span(&batch, 1) : std::span<BackgroundTenant>(),
                     out);
        rounds += approx.rounds();
        ++solves;
        for (int k = 0; k < per_gpu; ++k) {
          const auto s = static_cast<size_t>(service_of[static_cast<size_t>(k)]);
          const double requests = on_gpu[static_cast<size_t>(k)].arrival_rate * 60;
          out[static_cast<size_t>(k)].add_cdf(tables[s], requests, interval[s]);
          outside += out[static_cast<size_t>(k)].outside_checked_range();
        }
      }
      for (size_t s = 0; s < interval.size(); ++s) {
        const double total = interval[s].back();
        for (const double p : {0.5, 0.95, 0.99})
          checksum += LatencyGrid::quantile(interval[s], total, p);
        for (size_t i = 0; i < interval[s].size(); ++i) run[s][i] += interval[s][i];
      }
    }
  }
  benchmark::DoNotOptimize(checksum);
  state.counters["gpus"] = gpus;
  state.counters["rounds"] = rounds / solves;
  state.counters["solver_calls"] = static_cast<double>(approx.solver_calls()) / solves;
  state.counters["outside_checked"] = outside;
  double peak = 0;
  for (const RateCurve& r : rates) peak += r.peak(86400);
  state.counters["peak_rps"] = peak;
  state.SetLabel(std::string(mode->kind()));
}
BENCHMARK(BM_ServingApproxDay)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
