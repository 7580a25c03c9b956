// The scheduler extender's HTTP server (cpp-httplib): kube-scheduler's POST {prefix}/filter,
// /prioritize and /bind, and GET /healthz, /readyz and /metrics, over an ExtenderState.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "backends/k8s/cluster_io.h"
#include "backends/k8s/extender_metrics.h"
#include "backends/k8s/extender_state.h"

namespace httplib {
class Server;
}

namespace slicelab::k8s {

struct ExtenderServerOptions {
  std::string url_prefix;  // "" or e.g. "/slicelab" (no trailing slash)
  size_t max_body_bytes = kMaxExtenderBodyBytes;
  int threads = 8;  // concurrent requests (decisions are serialized by the state)
};

// The body of GET /metrics (Prometheus text); helper extobs's registry sets it.
using MetricsText = std::function<std::string()>;
// Called after each extender request: verb ("filter", "prioritize", "bind"), HTTP status and
// seconds spent (for request counts and latency histograms).
using RequestObserver = std::function<void(std::string_view verb, int status, double seconds)>;

class ExtenderServer {
 public:
  ExtenderServer(ExtenderState& state, ClusterWriter& writer, ExtenderServerOptions options);
  ~ExtenderServer();
  ExtenderServer(const ExtenderServer&) = delete;
  ExtenderServer& operator=(const ExtenderServer&) = delete;

  void set_metrics(MetricsText metrics);        // may come while serving
  void set_observer(RequestObserver observer);  // before bind()
  // Where requests (count per verb and status, handler latency) and decisions are recorded;
  // `metrics` outlives the server. Without it nothing is recorded.
  void set_request_metrics(ExtenderMetrics& metrics);
  // Binds (port 0: any free port) and returns the port; throws std::runtime_error if it cannot.
  int bind(const std::string& host, int port);
  void listen();  // blocks until stop()
  void stop();

  // The handlers without HTTP, for benchmarks and tests: (status, body).
  struct Reply {
    int status = 200;
    std::string body;
  };
  Reply handle_filter(const std::string& body);
  Reply handle_prioritize(const std::string& body);
  Reply handle_bind(const std::string& body);

 private:
  void record(DecisionResult result);
  // The handler's time, from the body having arrived to the answer being ready.
  void observe(std::string_view verb, int status, std::chrono::steady_clock::time_point start);

  ExtenderState& state_;
  ClusterWriter& writer_;
  ExtenderServerOptions options_;
  std::mutex metrics_mu_;  // set_metrics may come while the server runs (extobs wires it late)
  MetricsText metrics_;
  RequestObserver observer_;
  ExtenderMetrics* request_metrics_ = nullptr;
  std::unique_ptr<httplib::Server> server_;
  // httplib's stop() does nothing before its accept loop runs: stop() waits for a listen() in
  // progress to get there, and a listen() that comes after stop() returns at once.
  std::atomic<bool> listening_{false}, stop_requested_{false};
};

}  // namespace slicelab::k8s
