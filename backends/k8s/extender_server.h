// The scheduler extender's HTTP server: kube-scheduler's POST {prefix}/filter, /prioritize and
// /bind, and GET /healthz, /readyz and /metrics, over an ExtenderState, on a BoundedHttpServer.
//
// Who may call what: the verbs and /metrics need authentication where any is configured (a
// client certificate the client CA signed, or the bearer token); /healthz and /readyz never do.
// Without either, the listener must be a loopback address (or insecure_listen set). An optional
// probe listener serves /healthz and /readyz alone (and /metrics with its own token), for
// kubelet probes that cannot reach a loopback address or present a certificate.
//
// Memory: each verb's parse is charged, as it parses, to its request's charge
// (RequestContext::charge()) against the server's budget (memory_budget(): the one that request
// bodies in flight are reserved from), so that bodies and documents together stay under
// limits.memory_budget_bytes; a parse the budget cannot take is answered 503.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "backends/k8s/bearer_token.h"
#include "backends/k8s/bounded_http_server.h"
#include "backends/k8s/cluster_io.h"
#include "backends/k8s/extender_metrics.h"
#include "backends/k8s/extender_state.h"

namespace slicelab::k8s {

struct ExtenderSecurity {
  // HTTPS on the extender's listener; with client_ca_file, clients' certificates are verified.
  std::optional<ServerTlsFiles> tls;
  // A bearer token that authenticates requests on the extender's listener (clients other than
  // kube-scheduler, whose extender client sends none).
  std::shared_ptr<const BearerToken> token;
  // Serve a non-loopback address without authentication (--insecure-listen).
  bool insecure_listen = false;
  // The token of /metrics on the probe listener; without it the probe listener has no /metrics.
  std::shared_ptr<const BearerToken> metrics_token;
};

// The transport's limits with the extender's body limit.
inline HttpServerLimits extender_limits() {
  HttpServerLimits l;
  l.max_body_bytes = kMaxExtenderBodyBytes;
  return l;
}

struct ExtenderServerOptions {
  std::string url_prefix;  // "" or e.g. "/slicelab" (no trailing slash)
  // Time, size, connection, worker and memory limits (bounded_http_server.h); `workers` handle
  // requests concurrently (decisions are serialized by the state).
  HttpServerLimits limits = extender_limits();
  ExtenderSecurity security;
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
  // Binds the extender's listener (port 0: any free port) and returns the port. Throws
  // InsecureListenError for a non-loopback address without authentication (unless
  // security.insecure_listen), std::runtime_error when it cannot listen or use the TLS files.
  int bind(const std::string& host, int port);
  // Binds the probe listener: /healthz and /readyz without authentication over plain HTTP,
  // and /metrics with security.metrics_token when it is set. Returns the port.
  int bind_probes(const std::string& host, int port);
  void listen();  // serves until stop(); returns at once if stop() came first
  // Stops accepting, closes idle and slow connections, lets running handlers finish within the
  // limits' shutdown_grace; returns within about that (1 s by default) whatever clients do.
  void stop();

  // What request bodies in flight are reserved from, and what the handlers' parses may charge.
  MemoryBudget& memory_budget() { return server_->memory_budget(); }
  HttpServerStats stats() const { return server_->stats(); }

  // The handlers without HTTP, for benchmarks and tests: (status, body).
  struct Reply {
    int status = 200;
    std::string body;
  };
  Reply handle_filter(const std::string& body, BudgetCharge* charge = nullptr);
  Reply handle_prioritize(const std::string& body, BudgetCharge* charge = nullptr);
  Reply handle_bind(const std::string& body, BudgetCharge* charge = nullptr);

 private:
  void record(DecisionResult result);
  HttpRoute verb_route(const std::string& verb,
                       Reply (ExtenderServer::*handler)(const std::string&, BudgetCharge*));
  HttpResponse serve_metrics();
  HttpResponse serve_readyz();
  // GET /explain?pod=NAMESPACE/NAME: the pod's logged decisions (docs/explain.md).
  HttpResponse serve_explain(const std::string& query);
  // Counts every answer of the extender's listener (not probes or scrapes).
  void count_answer(std::string_view method, std::string_view path, int status);
  // The handler's time, from the body having arrived to the answer being ready.
  void observe(std::string_view verb, int status, std::chrono::steady_clock::time_point start);

  ExtenderState& state_;
  ClusterWriter& writer_;
  ExtenderServerOptions options_;
  std::mutex metrics_mu_;  // set_metrics may come while the server runs (extobs wires it late)
  MetricsText metrics_;
  RequestObserver observer_;
  ExtenderMetrics* request_metrics_ = nullptr;
  // Last: stopped and destroyed (its workers joined) before what the handlers use.
  std::unique_ptr<BoundedHttpServer> server_;
};

}  // namespace slicelab::k8s
