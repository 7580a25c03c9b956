// The extender's /metrics: its series in a registry of their own, with the gauges refreshed from
// the extender's state (cluster, GPU allocation, shadow figures) on every scrape.
#pragma once

#include <string>

#include "backends/k8s/extender_metrics.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/prometheus_registry.h"

namespace slicelab::k8s {

class MetricsEndpoint {
 public:
  // `state` outlives the endpoint.
  explicit MetricsEndpoint(const ExtenderState& state);
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // What the server's handlers record into (requests, latency, decisions).
  ExtenderMetrics& metrics() { return metrics_; }
  // The exposition text, after reading the state's figures.
  std::string scrape();

 private:
  const ExtenderState& state_;
  MetricRegistry registry_;
  ExtenderMetrics metrics_;
};

}  // namespace slicelab::k8s
