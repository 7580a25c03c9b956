// Pins down inference services in the engine (docs/inference-services.md#services-in-a-scenario):
// replicas are pods of each service's pool, placed like any pod; their requests' latency comes
// from the serving approximation per interval (hand-computed M/M/1 figures); the autoscaler's
// replicas that find no room are reported; scaled-down replicas free their GPUs; the pod figures
// stay the workload's own.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/service_table.h"

namespace slicelab {
namespace {

using testing::cluster_of;
using testing::node_group;
using testing::pod;
using testing::quiet_config;

// A service of one-GPU replicas serving exponential requests of `mean_s` one at a time.
ServiceSpec service(std::string name, RateCurve rate, double mean_s) {
  ServiceSpec s;
  s.name = std::move(name);
  s.replica.gpu_count = 1;
  s.replica.gpu_memory_mib = 1024;
  s.rate = std::move(rate);
  s.service_time = ServiceTime::make(mean_s, 1.0, true);
  s.concurrency = 1;
  s.request_sm = 1.0;
  s.startup_s = 60;
  return s;
}

RateCurve steps(std::vector<std::pair<double, double>> at) {
  RateCurve r;
  r.kind = RateCurve::Kind::kSteps;
  r.steps = std::move(at);
  return r;
}

struct ServiceRun {
  std::vector<PodSpec> pods;
  ServiceTable services;
  RunResult result;
  const ServiceSummary& of(std::string_view name) const {
    for (const ServiceSummary& s : result.summary.services)
      if (s.name == name) return s;
    ADD_FAILURE() << "no service " << name;
    return result.summary.services.front();
  }
};

ServiceRun run_services(const ClusterSpec& cluster, std::vector<PodSpec> plain,
                        std::vector<ServiceSpec> list, double until_s,
                        const char* sharing_kind = "whole-card") {
  ServiceRun r;
  r.pods = std::move(plain);
  r.services.expand(std::move(list), r.pods);
  EngineConfig config = quiet_config();
  config.backfill = true;
  config.until_s = until_s;
  SharingConfig sharing;
  sharing.kind = sharing_kind;
  const auto mode = make_sharing_mode(sharing);
  PlacementPolicy placement = build_placement(*placement_preset("first-fit"));
  RunInputs in{cluster, testing::catalog(), r.pods, *mode, config, 1};
  in.services = &r.services;
  r.result = run_simulation(in, placement);
  return r;
}

// Two replicas alone on their GPUs, 10 requests/s split between them, 50 ms requests one at a
// time: each is an M/M/1 queue with arrival rate 5 and service rate 20, so a request's latency
// is exponential with mean 1 / (20 - 5) = 66.7 ms, median ln 2 / 15 = 46.2 ms and p99
// ln 100 / 15 = 307 ms.
TEST(SimServices, FixedReplicasServeTheirRequestsAsAnMM1QueueEach) {
  ServiceSpec s = service("chat", RateCurve::constant(10), 0.05);
  s.replicas = 2;
  s.slo.p99 = 0.4;
  const ServiceRun r =
      run_services(cluster_of({node_group("n", 1, "A100-80GB", 2)}), {}, {s}, 3600);
  const ServiceSummary& chat = r.of("chat");
  EXPECT_NEAR(chat.requests, 36000, 1e-6);
  EXPECT_NEAR(chat.lost, 0.0, 1e-9);
  EXPECT_NEAR(chat.latency_s.mean, 1.0 / 15, 0.02 / 15);
  EXPECT_NEAR(chat.latency_s.p50, std::log(2.0) / 15, 0.03 * std::log(2.0) / 15);
  EXPECT_NEAR(chat.latency_s.p99, std::log(100.0) / 15, 0.03 * std::log(100.0) / 15);
  // P(latency <= 400 ms) = 1 - exp(-15 x 0.4).
  ASSERT_TRUE(chat.within_slo.has_value());
  EXPECT_NEAR(*chat.within_slo, 1 - std::exp(-6.0), 0.003);
  EXPECT_EQ(chat.slo_met, true);
  EXPECT_NEAR(chat.replicas_mean, 2.0, 1e-9);
  EXPECT_NEAR(chat.gpu_hours, 2.0, 1e-9);
  // The pod figures are the workload's own: it has no pods of its own here.
  EXPECT_EQ(r.result.summary.pods, 0U);
  ASSERT_TRUE(r.result.summary.service_totals.has_value());
  EXPECT_NEAR(*r.result.summary.service_totals->gpu_hours_per_million, 2.0 / 36000 * 1e6, 1e-6);
  // One sample per minute-long interval.
  EXPECT_EQ(r.result.service_samples.size(), 60U);
}

// The load steps from 2 to 60 requests/s at 10 minutes: the autoscaler (target: one request in
// service per replica) wants its maximum of 4 replicas, but the node has two GPUs, so two stay
// unplaced, and a pending batch pod that arrived meanwhile waits; when the load falls back at
// 40 minutes the replicas are scaled down after the 5-minute stabilization window, and the
// batch pod gets a GPU.
TEST(SimServices, TheAutoscalerScalesUpReportsUnplacedReplicasAndScalesDown) {
  ServiceSpec s = service("chat", steps({{0, 2}, {600, 60}, {2400, 2}}), 0.05);
  s.autoscale = AutoscaleSpec{1, 4, ScaleMetric::kConcurrency, 1.0};
  const ServiceRun r = run_services(cluster_of({node_group("n", 1, "A100-80GB", 2)}),
                                    {pod("batch", 1200, 600)}, {s}, 5400);
  const ServiceSummary& chat = r.of("chat");
  EXPECT_EQ(chat.replicas_peak, 4U);
  EXPECT_EQ(chat.unplaced_peak, 2U);
  EXPECT_GT(chat.unplaced_replica_s, 0.0);
  EXPECT_GE(chat.scale_ups, 1U);
  EXPECT_GE(chat.scale_downs, 1U);
  // Between the step and the new replica's start-up, one replica takes 60 requests/s at a
  // capacity of 20: its queue fills and drops.
  EXPECT_GT(chat.dropped, 0.0);
  // The batch pod waited for the scale-down: it started after the load fell at 40 minutes, plus
  // the 5-minute window.
  const PodOutcome& batch = r.result.pods[0];
  EXPECT_EQ(batch.status, PodStatus::kCompleted);
  EXPECT_GE(batch.start_s, 2400 + 300);
  EXPECT_EQ(r.result.summary.pods, 1U);
  EXPECT_EQ(r.result.summary.completed, 1U);
}

// A replica that can never be placed (more GPUs than a node has) is reported as unplaced and its
// requests as unserved.
TEST(SimServices, AReplicaThatNeverFitsLeavesItsRequestsUnserved) {
  ServiceSpec s = service("big", RateCurve::constant(5), 0.05);
  s.replica.gpu_count = 8;
  const ServiceRun r = run_services(cluster_of({node_group("n", 1, "A100-80GB", 2)}), {}, {s}, 600);
  const ServiceSummary& big = r.of("big");
  EXPECT_EQ(big.unplaced_peak, 1U);
  EXPECT_NEAR(big.unserved, 3000, 1e-6);
  EXPECT_NEAR(big.lost, 1.0, 1e-12);
  EXPECT_EQ(big.latency_s.count, 0U);
  const PodOutcome& replica = r.result.pods[0];
  EXPECT_EQ(replica.status, PodStatus::kUnschedulable);
}

// Under time-slicing, a busy replica takes SM time from the batch pod beside it (which asks for
// all the SMs); an idle one (no requests) leaves it the whole GPU. Beside a pod asking for all
// of it, a request gets half the GPU (max-min fair), so at 5 requests/s of 50 ms the replica is
// busy half the time with half the GPU: a quarter of the GPU on average, and the batch pod gets
// what is left of the 95% that switching leaves.
TEST(SimServices, ABatchNeighbourFeelsTheReplicasLoadUnderTimeSlicing) {
  auto batch_jct = [](double rate) {
    ServiceSpec s = service("chat", RateCurve::constant(rate), 0.05);
    s.replica.gpu_milli = 500;
    PodSpec b = pod("batch", 0, 1800);
    const ServiceRun r = run_services(cluster_of({node_group("n", 1, "A100-80GB", 1)}), {b}, {s},
                                      7200, "time-slice");
    EXPECT_EQ(r.result.pods[0].status, PodStatus::kCompleted);
    return r.result.pods[0].finish_s - r.result.pods[0].start_s;
  };
  const double idle = batch_jct(0.0);
  const double busy = batch_jct(5.0);
  EXPECT_NEAR(idle, 1800, 1800 * 0.01);
  EXPECT_NEAR(busy, 1800 / (0.95 - 0.25), 1800 * 0.1);
}

}  // namespace
}  // namespace slicelab
