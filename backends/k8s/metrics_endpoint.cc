#include "backends/k8s/metrics_endpoint.h"

#include "backends/k8s/process_memory.h"

namespace slicelab::k8s {

MetricsEndpoint::MetricsEndpoint(const ExtenderState& state, size_t max_exposition_bytes)
    : state_(state), registry_(max_exposition_bytes), metrics_(registry_) {}

std::string MetricsEndpoint::scrape() {
  const ExtenderSnapshot s = state_.snapshot();
  metrics_.update_cluster({s.ready, static_cast<int64_t>(s.nodes),
                           static_cast<int64_t>(s.pods_known), static_cast<int64_t>(s.pods_bound),
                           static_cast<int64_t>(s.objects_rejected)});
  if (s.shadow) {
    const ShadowFigures& f = *s.shadow;
    metrics_.update_shadow({f.fragmented_gpus_actual, f.fragmented_gpus_slicelab,
                            static_cast<int64_t>(f.pending_placeable),
                            static_cast<int64_t>(f.decisions), static_cast<int64_t>(f.same_node),
                            static_cast<int64_t>(f.different_node)});
  }
  if (watch_source_) {
    for (const WatchKind kind : {WatchKind::Node, WatchKind::Pod}) {
      const WatchStats w = watch_source_(kind);
      metrics_.update_watch(kind == WatchKind::Node ? "node" : "pod",
                            {static_cast<int64_t>(w.lists), static_cast<int64_t>(w.expired),
                             static_cast<int64_t>(w.broken), static_cast<int64_t>(w.failures)});
    }
  }
  if (log_source_) metrics_.update_decision_log(log_source_());
  if (const auto rss = resident_memory_bytes()) metrics_.update_resident_memory(*rss);
  metrics_.update_gpu_allocation(state_.gpu_allocation());
  return registry_.expose();
}

}  // namespace slicelab::k8s
