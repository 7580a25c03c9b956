// An inference service as scenarios describe it: replicas of one request (fixed, or scaled by an
// HPA-style autoscaler), a request-rate curve, a per-request service time, a latency SLO.
// Plain value type, validated by its reader (workloads/inputs/service_yaml.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "workloads/optional_seconds.h"
#include "workloads/pod_spec.h"
#include "workloads/rate_curve.h"
#include "workloads/service_time.h"

namespace slicelab {

inline constexpr int64_t kMaxServices = 1'000;
inline constexpr int kMaxServiceReplicas = 10'000;
inline constexpr int kMaxServiceConcurrency = 4'096;
inline constexpr int kMaxServiceQueue = 1'000'000;

// What the autoscaler measures per ready replica (its HPA metric's AverageValue).
enum class ScaleMetric : uint8_t {
  kConcurrency,  // requests in service (a custom pods metric, as KEDA or a vLLM exporter give)
  kUtilization,  // share of time the replica's GPU works on its requests, 0..1 (DCGM's
                 // GPU utilisation per pod)
};

struct AutoscaleSpec {
  int min_replicas = 1;
  int max_replicas = 1;
  ScaleMetric metric = ScaleMetric::kConcurrency;
  double target = 1.0;
  // Kubernetes' defaults (sim/serving/hpa_controller.h) unless the scenario sets them.
  double tolerance = 0.1;
  double scale_up_stabilization_s = 0.0;
  double scale_down_stabilization_s = 300.0;
};

// Latency targets of the service's requests (any subset); met when the run's percentile is
// within them.
struct LatencySlo {
  OptionalSeconds p50;
  OptionalSeconds p95;
  OptionalSeconds p99;
  bool any() const { return p50.has_value() || p95.has_value() || p99.has_value(); }
};

struct ServiceSpec {
  std::string name;  // unique within a workload
  // Each replica's request (GPUs, memory = the model's weights, CPU, models, class, priority,
  // MIG profile), as a pod's; its name, arrival and duration are unused.
  PodSpec replica;
  int64_t memory_per_request_mib = 0;  // device memory each request in service adds (KV cache)
  int replicas = 1;                    // fixed count; ignored when autoscale is set
  std::optional<AutoscaleSpec> autoscale;
  double startup_s = 60.0;  // from placement to serving: image pull and model load
  RateCurve rate;
  ServiceTime service_time;
  int concurrency = 1;
  double request_sm = 1.0;
  int max_queue = 1000;
  LatencySlo slo;

  int initial_replicas() const { return autoscale ? autoscale->min_replicas : replicas; }
  int most_replicas() const { return autoscale ? autoscale->max_replicas : replicas; }
};

}  // namespace slicelab
