#include "backends/k8s/extender_server.h"

#include <fmt/format.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace slicelab::k8s {
namespace {

ExtenderServer::Reply bad_request(const std::string& message) {
  return {400, nlohmann::json{{"Error", message}}.dump()};
}

// An answer's JSON: text that came from elsewhere (an API server's error message) may hold bytes
// that are not UTF-8, which are replaced rather than failing the answer.
std::string answer(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Parsing the body would pass its memory (the shared budget of the requests in flight, or the
// process's): not the client's fault; kube-scheduler tries the pod again.
ExtenderServer::Reply unavailable(const std::string& message) {
  return {503, nlohmann::json{{"Error", "slicelab: " + message}}.dump()};
}

constexpr const char* kExtenderListener = "extender";

HttpRoute probe_route(std::string path, HttpRoute::Dispatch dispatch, HttpHandler handler) {
  return {"GET", std::move(path), HttpRoute::Access::kPublic, dispatch, std::move(handler)};
}

HttpResponse healthz(HttpRequest&, RequestContext&) {
  return {200, "text/plain", "ok\n"};
}

}  // namespace

ExtenderServer::ExtenderServer(ExtenderState& state, ClusterWriter& writer,
                               ExtenderServerOptions options)
    : state_(state),
      writer_(writer),
      options_(std::move(options)),
      server_(std::make_unique<BoundedHttpServer>(options_.limits)) {
  // Every answer of the extender's listener is counted just before it is written (so a client
  // that reads it finds it counted), also those the transport gives itself (401, 404, 413, 503),
  // which no handler sees.
  server_->set_observer([this](std::string_view listener, std::string_view method,
                               std::string_view path, int status) {
    if (listener == kExtenderListener) count_answer(method, path, status);
  });
}

ExtenderServer::~ExtenderServer() {
  stop();
}

HttpRoute ExtenderServer::verb_route(const std::string& verb,
                                     Reply (ExtenderServer::*handler)(const std::string&,
                                                                      BudgetCharge*)) {
  return {"POST", options_.url_prefix + "/" + verb, HttpRoute::Access::kAuthenticated,
          HttpRoute::Dispatch::kWorker,
          [this, handler, verb](HttpRequest& request, RequestContext& context) {
            const auto start = std::chrono::steady_clock::now();
            // The parse charges the request's share of the server's memory budget.
            Reply r = (this->*handler)(request.body, &context.charge());
            observe(verb, r.status, start);
            return HttpResponse{r.status, "application/json", std::move(r.body)};
          }};
}

HttpResponse ExtenderServer::serve_metrics() {
  MetricsText metrics;
  {
    std::lock_guard lock(metrics_mu_);
    metrics = metrics_;
  }
  return {200, std::string(MetricRegistry::kContentType), metrics ? metrics() : std::string()};
}

HttpResponse ExtenderServer::serve_readyz() {
  const bool ready = state_.ready();
  return {ready ? 200 : 503, "text/plain", ready ? "ok\n" : "waiting for the node and pod lists\n"};
}

int ExtenderServer::bind(const std::string& host, int port) {
  ListenerSpec spec;
  spec.name = kExtenderListener;
  spec.host = host;
  spec.port = port;
  spec.tls = options_.security.tls;
  spec.token = options_.security.token;
  spec.insecure = options_.security.insecure_listen;
  spec.routes = {
      verb_route("filter", &ExtenderServer::handle_filter),
      verb_route("prioritize", &ExtenderServer::handle_prioritize),
      verb_route("bind", &ExtenderServer::handle_bind),
      {"GET", "/metrics", HttpRoute::Access::kAuthenticated, HttpRoute::Dispatch::kWorker,
       [this](HttpRequest&, RequestContext&) { return serve_metrics(); }},
      probe_route("/healthz", HttpRoute::Dispatch::kInline, healthz),
      // The state's lock may be held by a decision: on a worker.
      probe_route("/readyz", HttpRoute::Dispatch::kWorker,
                  [this](HttpRequest&, RequestContext&) { return serve_readyz(); })};
  return server_->add_listener(std::move(spec));
}

int ExtenderServer::bind_probes(const std::string& host, int port) {
  ListenerSpec spec;
  spec.name = "probes";
  spec.host = host;
  spec.port = port;
  spec.routes = {probe_route("/healthz", HttpRoute::Dispatch::kInline, healthz),
                 probe_route("/readyz", HttpRoute::Dispatch::kWorker,
                             [this](HttpRequest&, RequestContext&) { return serve_readyz(); })};
  if (options_.security.metrics_token) {
    spec.token = options_.security.metrics_token;
    spec.routes.push_back({"GET", "/metrics", HttpRoute::Access::kAuthenticated,
                           HttpRoute::Dispatch::kWorker,
                           [this](HttpRequest&, RequestContext&) { return serve_metrics(); }});
  }
  return server_->add_listener(std::move(spec));
}

void ExtenderServer::listen() {
  server_->run();
}

void ExtenderServer::stop() {
  server_->stop();
}

void ExtenderServer::count_answer(std::string_view method, std::string_view path, int status) {
  if (request_metrics_ == nullptr) return;
  // Probes and scrapes are not extender requests.
  if (method == "GET" && (path == "/healthz" || path == "/readyz" || path == "/metrics")) return;
  std::string_view verb = "other";
  const std::string& prefix = options_.url_prefix;
  if (path.size() > prefix.size() + 1 && path.substr(0, prefix.size()) == prefix &&
      path[prefix.size()] == '/') {
    verb = path.substr(prefix.size() + 1);
  }
  request_metrics_->count_request(verb, status);
}

void ExtenderServer::set_metrics(MetricsText metrics) {
  std::lock_guard lock(metrics_mu_);
  metrics_ = std::move(metrics);
}

void ExtenderServer::set_observer(RequestObserver observer) {
  observer_ = std::move(observer);
}

void ExtenderServer::set_request_metrics(ExtenderMetrics& metrics) {
  request_metrics_ = &metrics;
}

void ExtenderServer::observe(std::string_view verb, int status,
                             std::chrono::steady_clock::time_point start) {
  if (request_metrics_ == nullptr && !observer_) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (observer_) observer_(verb, status, seconds);
  if (request_metrics_ != nullptr) request_metrics_->observe_duration(verb, seconds);
}

void ExtenderServer::record(DecisionResult result) {
  if (request_metrics_ != nullptr) request_metrics_->record_decision(result);
}

namespace {

// Runs a verb's decision; a body the protocol does not allow is 400 with the reason in Error, a
// body or answer past its memory 503 (kube-scheduler tries again), each recorded as rejected.
template <class Decide, class Record>
ExtenderServer::Reply guarded(Decide&& decide, Record&& record) {
  try {
    return decide();
  } catch (const WireError& e) {
    record(DecisionResult::kRejected);
    return bad_request(e.what());
  } catch (const WireOverBudget& e) {
    record(DecisionResult::kRejected);
    return unavailable(e.what());
  } catch (const std::bad_alloc&) {
    record(DecisionResult::kRejected);
    return unavailable("out of memory while answering");
  }
}

}  // namespace

// The handlers: a valid body is 200, with the decision's own error (a pod slicelab cannot read)
// in the result's Error.
ExtenderServer::Reply ExtenderServer::handle_filter(const std::string& body, BudgetCharge* charge) {
  const auto record = [this](DecisionResult r) { this->record(r); };
  return guarded(
      [&]() -> Reply {
        const ExtenderArgs args = parse_extender_args(body, {.charge = charge});
        const ExtenderFilterResult result = state_.filter(args);
        const bool none = (!result.node_names || result.node_names->empty()) &&
                          (!result.nodes || result.nodes->empty());
        record(!result.error.empty() ? DecisionResult::kRejected
               : none                ? DecisionResult::kUnschedulable
                                     : DecisionResult::kFeasible);
        return {200, answer_text(result)};
      },
      record);
}

ExtenderServer::Reply ExtenderServer::handle_prioritize(const std::string& body,
                                                        BudgetCharge* charge) {
  const auto record = [this](DecisionResult r) { this->record(r); };
  return guarded(
      [&]() -> Reply {
        const ExtenderArgs args = parse_extender_args(body, {.charge = charge});
        const std::vector<HostPriority> result = state_.prioritize(args);
        record(DecisionResult::kPrioritized);
        return {200, answer_text(result)};
      },
      record);
}

ExtenderServer::Reply ExtenderServer::handle_bind(const std::string& body, BudgetCharge* charge) {
  const auto record = [this](DecisionResult r) { this->record(r); };
  return guarded(
      [&]() -> Reply {
        const ExtenderBindingArgs args = parse_binding_args(body, {.charge = charge});
        const ExtenderBindingResult result = state_.bind(args, writer_);
        record(result.error.empty() ? DecisionResult::kBound : DecisionResult::kBindFailed);
        return {200, answer(to_json(result))};
      },
      record);
}

}  // namespace slicelab::k8s
