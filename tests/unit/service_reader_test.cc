// Inference services as scenarios write them (workloads/inputs/service_yaml.h): every field read,
// the rate curves' values and exact means, and each rule a service must follow, refused with
// its location.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "tests/support/temp_files.h"
#include "workloads/inputs/service_yaml.h"
#include "workloads/rate_curve.h"

namespace slicelab {
namespace {

using testing::message_of;
using ServiceFiles = testing::TempFilesTest;

std::vector<ServiceSpec> read(const std::string& text, const std::string& base_dir = ".") {
  const YAML::Node doc = YAML::Load(text);
  return read_service_list(YamlReader("s.yaml"), doc["services"], "workload.services", base_dir);
}

TEST(RateCurve, ConstantDiurnalAndSteps) {
  const RateCurve c = RateCurve::constant(40);
  EXPECT_EQ(c.at(123), 40);
  EXPECT_EQ(c.mean(0, 3600), 40);
  // Mean 100, +-60%, peak at 14h: 160 then, 40 at 2h; a whole day averages the mean.
  const RateCurve d = RateCurve::diurnal(100, 0.6, 14 * 3600);
  EXPECT_NEAR(d.at(14 * 3600), 160, 1e-9);
  EXPECT_NEAR(d.at(2 * 3600), 40, 1e-9);
  EXPECT_NEAR(d.mean(0, 86400), 100, 1e-9);
  // Over [8h, 20h], centred on the peak: 100 (1 + 0.6 x sin(pi/2) x 2 / pi) = 138.197.
  EXPECT_NEAR(d.mean(8 * 3600, 20 * 3600), 100 * (1 + 0.6 * 2 / std::numbers::pi), 1e-9);
  EXPECT_NEAR(d.peak(86400), 160, 1e-9);
  EXPECT_NEAR(d.peak(3600), d.at(0), 1e-9);  // the first hour is falling towards 2h
  RateCurve s;
  s.kind = RateCurve::Kind::kSteps;
  s.steps = {{0, 10}, {600, 30}, {1200, 20}};
  EXPECT_EQ(s.at(599), 10);
  EXPECT_EQ(s.at(600), 30);
  EXPECT_EQ(s.at(5000), 20);
  EXPECT_NEAR(s.mean(300, 900), 20, 1e-12);    // half at 10, half at 30
  EXPECT_NEAR(s.mean(1000, 1400), 25, 1e-12);  // 200 s at 30, 200 s at 20
  EXPECT_EQ(s.peak(600), 10);
  EXPECT_EQ(s.peak(1e9), 30);
}

TEST(ServiceReader, ReadsEveryField) {
  const auto services = read(R"(
services:
  - name: chat
    class: inference
    gpu_count: 1
    gpu_memory_mib: 20Gi
    memory_per_request: 512Mi
    autoscale: {min: 2, max: 12, metric: concurrency, target: 6, scale_down_stabilization: 10m}
    startup: 90s
    rate: {mean: 300, amplitude: 0.6, peak: 15h}
    service_time: {mean: 80ms, cv: 0.5}
    concurrency: 16
    request_sm: 0.2
    max_queue: 500
    slo: {p99: 200ms, p50: 60ms}
  - name: embed
    gpu_count: 1
    gpu_milli: 250
    replicas: 3
    rate: 50
    service_time: {mean: 5ms, exponential: true}
)");
  ASSERT_EQ(services.size(), 2U);
  const ServiceSpec& chat = services[0];
  EXPECT_EQ(chat.name, "chat");
  EXPECT_EQ(std::string_view(chat.replica.workload_class), "inference");
  EXPECT_EQ(chat.replica.gpu_memory_mib, 20480);
  EXPECT_EQ(chat.memory_per_request_mib, 512);
  ASSERT_TRUE(chat.autoscale.has_value());
  EXPECT_EQ(chat.autoscale->min_replicas, 2);
  EXPECT_EQ(chat.autoscale->max_replicas, 12);
  EXPECT_EQ(chat.autoscale->target, 6);
  EXPECT_EQ(chat.autoscale->scale_down_stabilization_s, 600);
  EXPECT_EQ(chat.initial_replicas(), 2);
  EXPECT_EQ(chat.most_replicas(), 12);
  EXPECT_EQ(chat.startup_s, 90);
  EXPECT_EQ(chat.rate.kind, RateCurve::Kind::kDiurnal);
  EXPECT_NEAR(chat.rate.at(15 * 3600), 480, 1e-9);
  EXPECT_EQ(chat.service_time.shape, ServiceTime::Shape::kLognormal);
  EXPECT_NEAR(chat.service_time.mean_s, 0.08, 1e-12);
  EXPECT_EQ(chat.service_time.cv, 0.5);
  EXPECT_EQ(chat.concurrency, 16);
  EXPECT_EQ(chat.request_sm, 0.2);
  EXPECT_EQ(chat.max_queue, 500);
  EXPECT_NEAR(*chat.slo.p99, 0.2, 1e-12);
  EXPECT_NEAR(*chat.slo.p50, 0.06, 1e-12);
  EXPECT_FALSE(chat.slo.p95.has_value());
  const ServiceSpec& embed = services[1];
  EXPECT_FALSE(embed.autoscale.has_value());
  EXPECT_EQ(embed.replicas, 3);
  EXPECT_EQ(embed.replica.gpu_milli, 250);
  EXPECT_EQ(embed.rate.kind, RateCurve::Kind::kConstant);
  EXPECT_EQ(embed.service_time.shape, ServiceTime::Shape::kExponential);
  EXPECT_EQ(embed.concurrency, 1);
  EXPECT_EQ(embed.request_sm, 1.0);  // one request fills the GPU when the batch is one
  EXPECT_EQ(embed.startup_s, 60);
}

TEST_F(ServiceFiles, RateFromACsvRelativeToTheScenario) {
  write("rate.csv", "time,rate\n0,10\n15m,40\n3600,25\n");
  const auto services = read(R"(
services:
  - {name: s, gpu_count: 1, rate: {csv: rate.csv}, service_time: {mean: 10ms}}
)",
                             dir_.string());
  const RateCurve& r = services[0].rate;
  ASSERT_EQ(r.steps.size(), 3U);
  EXPECT_EQ(r.at(899), 10);
  EXPECT_EQ(r.at(900), 40);
  EXPECT_EQ(r.at(4000), 25);
}

TEST_F(ServiceFiles, BrokenRateCsvsAreNamedByLine) {
  write("late.csv", "time,rate\n60,10\n");
  EXPECT_EQ(message_of([&] { read_rate_csv((dir_ / "late.csv").string()); }),
            (dir_ / "late.csv").string() + ":2: the first rate step must start at 0");
  write("back.csv", "time,rate\n0,10\n600,20\n300,5\n");
  EXPECT_EQ(message_of([&] { read_rate_csv((dir_ / "back.csv").string()); }),
            (dir_ / "back.csv").string() + ":4: time 300 does not follow the previous step's 600");
  write("neg.csv", "time,rate\n0,-1\n");
  EXPECT_NE(
      message_of([&] { read_rate_csv((dir_ / "neg.csv").string()); }).find(":2: column 'rate'"),
      std::string::npos);
  write("empty.csv", "time,rate\n");
  EXPECT_EQ(message_of([&] { read_rate_csv((dir_ / "empty.csv").string()); }),
            (dir_ / "empty.csv").string() + ": no rate steps");
}

TEST(ServiceReader, RefusesWhatAServiceCannotBe) {
  const auto error = [](const std::string& service) {
    return message_of([&] { read("services:\n  - " + service + "\n"); });
  };
  const std::string ok = "rate: 10, service_time: {mean: 10ms}";
  EXPECT_EQ(error("{name: a, " + ok + "}"),
            "s.yaml:2:5: workload.services[0]: a service's replicas need a GPU (gpu_count of at "
            "least 1)");
  EXPECT_EQ(
      error("{name: a, gpu_count: 1, replicas: 2, autoscale: {max: 3, target: 1}, " + ok + "}"),
      "s.yaml:2:53: workload.services[0].autoscale: give either replicas (a fixed count) or "
      "autoscale, not both");
  EXPECT_EQ(error("{name: a, gpu_count: 1, autoscale: {min: 4, max: 3, target: 1}, " + ok + "}"),
            "s.yaml:2:54: workload.services[0].autoscale.max: expected an integer in 4..10000, "
            "found '3'");
  EXPECT_EQ(
      error("{name: a, gpu_count: 1, autoscale: {max: 3, metric: qps, target: 1}, " + ok + "}"),
      "s.yaml:2:57: workload.services[0].autoscale.metric: expected concurrency or "
      "utilization, found 'qps'");
  EXPECT_EQ(error("{name: a, gpu_count: 1, rate: 10, service_time: {mean: 10ms, cv: 1, "
                  "exponential: true}}"),
            "s.yaml:2:70: workload.services[0].service_time.cv: an exponential service time has a "
            "cv of 1");
  EXPECT_EQ(error("{name: a, gpu_count: 1, slo: {}, " + ok + "}"),
            "s.yaml:2:34: workload.services[0].slo: an SLO needs at least one of p50, p95, p99");
  EXPECT_EQ(error("{name: a, gpu_count: 1, rate: {mean: 5, csv: r.csv}, service_time: {mean: 1s}}"),
            "s.yaml:2:35: workload.services[0].rate: a rate from a CSV takes no other key (mean, "
            "amplitude, peak)");
  EXPECT_EQ(message_of([&] {
              read("services:\n  - {name: a, gpu_count: 1, " + ok +
                   "}\n  - {name: a, gpu_count: 1, " + ok + "}\n");
            }),
            "s.yaml:3:12: workload.services[1].name: duplicate service name 'a' (also "
            "workload.services[0])");
  EXPECT_EQ(error("{name: a, gpu_count: 1, rate: 2e7, service_time: {mean: 10ms}}"),
            "s.yaml:2:35: workload.services[0].rate: expected a number in 0..10000000, found "
            "'2e7'");
}

}  // namespace
}  // namespace slicelab
