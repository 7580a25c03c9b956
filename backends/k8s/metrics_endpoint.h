// The extender's /metrics: its series in a registry of their own, with the gauges refreshed from
// the extender's state (cluster, GPU allocation, shadow figures) on every scrape.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "backends/k8s/extender_metrics.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/prometheus_registry.h"
#include "backends/k8s/resource_watch.h"

namespace slicelab::k8s {

class MetricsEndpoint {
 public:
  // `state` outlives the endpoint. A scrape's text is at most `max_exposition_bytes`
  // (MetricRegistry: past it whole families are left out, and counted).
  explicit MetricsEndpoint(
      const ExtenderState& state,
      size_t max_exposition_bytes = MetricRegistry::kDefaultMaxExpositionBytes);
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Where a scrape reads the watches' health and the shadow decision log's totals; set before
  // the server serves (they are not guarded). Without them those series stay 0.
  using WatchStatsSource = std::function<WatchStats(WatchKind)>;
  using DecisionLogSource = std::function<DecisionLogFigures()>;
  void set_watch_source(WatchStatsSource source) { watch_source_ = std::move(source); }
  void set_decision_log_source(DecisionLogSource source) { log_source_ = std::move(source); }

  // What the server's handlers record into (requests, latency, decisions).
  ExtenderMetrics& metrics() { return metrics_; }
  // The exposition text, after reading the state's figures: the GPU families are written from
  // the state's snapshot straight into one string, so a scrape takes about its text's size.
  std::string scrape();

 private:
  const ExtenderState& state_;
  MetricRegistry registry_;
  ExtenderMetrics metrics_;
  WatchStatsSource watch_source_;
  DecisionLogSource log_source_;
};

}  // namespace slicelab::k8s
